package ui

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
)

// withHistory gives a harness a history file of the test's, and records
// what Show in folder was asked to open.
func withHistory(t *testing.T, opened *folderLog) harnessOpt {
	withN := withNode(t, app.Config{})
	return func(c *Config) {
		withN(c)
		c.OpenFolder = opened.open
	}
}

type folderLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *folderLog) open(p string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paths = append(l.paths, p)
	return nil
}

func (l *folderLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.paths) == 0 {
		return ""
	}
	return l.paths[len(l.paths)-1]
}

// historyRows shows the History tab and waits until it lists n records.
func (h *harness) historyRows(n int) *historyView {
	h.t.Helper()
	v := h.u.history
	h.loop.run(h.u.ShowHistory)
	h.waitFor("the history to list the transfers", func() bool {
		v.load()
		return len(v.recs) == n && v.list.Length() == n
	})
	return v
}

// rowOf returns the widgets the list shows for record i (the list must
// have laid it out: the window is large enough for a few rows).
func (v *historyView) rowOf(t *testing.T, i int) *historyRow {
	for _, r := range v.rows {
		if r.title.Text == historyWhat(v.recs[i]) && r.sub.Text != "" && contains(r.sub.Text, historyWho(v.recs[i])) {
			return r
		}
	}
	t.Fatalf("no row shows record %d (%s)", i, historyWhat(v.recs[i]))
	return nil
}

// tapOverlayButton taps the button labelled text in the topmost overlay
// (a dialog).
func (h *harness) tapOverlayButton(text string) {
	h.t.Helper()
	var found *widget.Button
	h.loop.run(func() {
		top := h.win.Canvas().Overlays().Top()
		if top == nil {
			return
		}
		var walk func(o fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			switch x := o.(type) {
			case *widget.Button:
				if x.Text == text {
					found = x
				}
			case *fyne.Container:
				for _, c := range x.Objects {
					walk(c)
				}
			case fyne.Widget:
				for _, c := range test.WidgetRenderer(x).Objects() {
					walk(c)
				}
			}
		}
		walk(top)
	})
	if found == nil {
		h.t.Fatalf("no %q button in a dialog; window:\n%s", text, h.screen())
	}
	h.tap(found)
}

// TestHistoryBothEnds sends through the real engine over loopback from
// one app to another: a wrong code, then a transfer that works. Each
// app's History lists its end, newest first, with who, what, where and
// the result; Show in folder opens the folder the files went to (or came
// from); Clear, once confirmed, empties the file; with recording off, a
// transfer adds nothing.
func TestHistoryBothEnds(t *testing.T) {
	loop := newUILoop(t)
	var aOpened, bOpened folderLog
	b := newHarnessOn(t, loop, named("Desk B"), askOff, withHistory(t, &bOpened))
	b.u.Start()
	a := newHarnessOn(t, loop, noReceive, named("Laptop A"), withHistory(t, &aOpened))
	a.u.Start()
	src := t.TempDir()
	file := writeFile(t, src, "report.pdf", 120_000)
	writeFile(t, src, "album/one.jpg", 30_000)
	a.drop(file, filepath.Join(src, "album"))

	_, addr, code := b.listening()
	a.fill(addr, "000000")
	if p := a.sendAndWait(); p.state == stateVerified {
		t.Fatal("a wrong code was verified")
	}
	a.fill(addr, code)
	if p := a.sendAndWait(); p.state != stateVerified {
		t.Fatalf("send: %s (%s)", p.headline.Text, p.detail.Text)
	}
	rv := b.u.recv
	b.waitFor("B's result", func() bool { return rv.prog.state == stateVerified })

	av := a.historyRows(2)
	a.check(func() bool {
		ok, wrong := av.recs[0], av.recs[1]
		if wrong.Outcome != stores.HistoryFailed || wrong.ErrorKind != "wrong_code" || historyResult(wrong) != "Failed: wrong code" {
			t.Errorf("wrong-code record: %+v", wrong)
		}
		if ok.Direction != stores.HistorySent || ok.Outcome != stores.HistoryVerified || ok.PeerName != "Desk B" || ok.Auth != stores.HistoryByCode ||
			ok.Files != 2 || ok.Folders != 1 || ok.Bytes != 150_000 || ok.Folder != src || len(ok.Names) != 2 {
			t.Errorf("A's record: %+v", ok)
			return false
		}
		r := av.rowOf(t, 0)
		if r.title.Text != "report.pdf and 1 more  ·  150 kB" || !contains(r.sub.Text, "To Desk B") ||
			!contains(r.sub.Text, "Today") || !contains(r.sub.Text, "Verified") || r.where.Text != "From "+src || r.show.Disabled() {
			t.Errorf("A's row: %q / %q / %q, show disabled %v", r.title.Text, r.sub.Text, r.where.Text, r.show.Disabled())
			return false
		}
		test.Tap(r.show)
		return true
	})
	if got := aOpened.last(); got != src {
		t.Errorf("A's Show in folder opened %q, want %q", got, src)
	}

	bv := b.historyRows(1)
	b.check(func() bool {
		rec := bv.recs[0]
		if rec.Direction != stores.HistoryReceived || rec.Outcome != stores.HistoryVerified || rec.PeerName != "Laptop A" ||
			rec.Folder != b.dir || len(rec.Paths) != 2 || rec.Paths[0] != filepath.Join(b.dir, "report.pdf") {
			t.Errorf("B's record: %+v", rec)
			return false
		}
		r := bv.rowOf(t, 0)
		if !contains(r.sub.Text, "From Laptop A") || r.where.Text != "Saved in "+b.dir {
			t.Errorf("B's row: %q / %q", r.sub.Text, r.where.Text)
		}
		test.Tap(r.show)
		return true
	})
	if got := bOpened.last(); got != b.dir {
		t.Errorf("B's Show in folder opened %q, want %q", got, b.dir)
	}

	// Clear asks first; confirmed, the file is empty.
	a.tap(av.clear)
	a.tapOverlayButton("Yes")
	a.waitFor("the history to be cleared", func() bool { return len(av.recs) == 0 && av.clear.Disabled() })
	if recs, _, err := a.u.hist.List(); err != nil || len(recs) != 0 {
		t.Errorf("after Clear: %d records, %v", len(recs), err)
	}

	// With recording off, a transfer leaves no record.
	a.loop.run(func() { test.Tap(av.keep) })
	if a.u.cfg.App.Preferences().BoolWithFallback(prefKeepHistory, true) {
		t.Fatal("unticking Record new transfers did not turn it off")
	}
	b.loop.run(rv.listenAgain)
	_, addr, code = b.listening()
	a.fill(addr, code)
	if p := a.sendAndWait(); p.state != stateVerified {
		t.Fatalf("second send: %s (%s)", p.headline.Text, p.detail.Text)
	}
	b.historyRows(2) // the receiver still records
	a.loop.run(av.load)
	a.check(func() bool {
		if len(av.recs) != 0 || !contains(av.note.Text, "Recording is off") {
			t.Errorf("with recording off: %d records, note %q", len(av.recs), av.note.Text)
		}
		return true
	})
}

// TestHistoryNotWritten: a history file that cannot be written costs the
// record, never the send, and the History tab says so (the Node's
// warning, through UI.Warn).
func TestHistoryNotWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.MkdirAll(filepath.Join(dir, "history.json"), 0o700); err != nil { // a folder where the file goes
		t.Fatal(err)
	}
	h := newHarness(t, noReceive, withNode(t, app.Config{ConfigDir: dir}))
	h.drop(writeFile(t, t.TempDir(), "a.txt", 10))
	h.fill("127.0.0.1:1", "123456") // nobody listens there
	h.tap(h.u.send.sendBtn)
	h.waitFor("the failed send", func() bool { return h.u.send.prog.state == stateFailed })
	v := h.u.history
	h.waitFor("the History tab to say it", func() bool {
		return strings.HasPrefix(v.note.Text, "This transfer isn't in the history: ") && v.note.Importance == widget.DangerImportance
	})
}
