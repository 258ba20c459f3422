package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// rowChecks are the device rows' boxes, in the list's order.
func rowChecks(v *sendView) []*widget.Check {
	var out []*widget.Check
	for _, o := range test.LaidOutObjects(v.devList) {
		if c, ok := o.(*widget.Check); ok && c.Visible() {
			out = append(out, c)
		}
	}
	return out
}

// tick taps a box in its middle, where a person would.
func tick(c *widget.Check) {
	test.TapAt(c, fyne.NewPos(c.MinSize().Width/2, c.Size().Height/2))
}

// Three real receivers on loopback, picked in the device list by ticking
// their boxes: each gets a code field of its own, a progress row of its
// own and a result of its own; the one that declines does not stop the
// other two, which get the file intact. The history has a record per
// device, each with its own outcome.
func TestSendToSeveralDevices(t *testing.T) {
	peers := []*peerReceiver{
		startPeerReceiver(t, peerAccepts),
		startPeerReceiver(t, peerDeclines),
		startPeerReceiver(t, peerAccepts),
	}
	h := newHarness(t, noReceive, withHistory(t, &folderLog{}))
	v := h.u.send
	src := writeFile(t, t.TempDir(), "report.pdf", 700_000)
	h.drop(src)
	h.loop.run(func() {
		for _, p := range peers {
			test.Type(v.addr, p.addr())
			test.Tap(v.addAddr)
		}
	})
	// The last one added is chosen; tick the other two.
	h.check(func() bool {
		checks := rowChecks(v)
		if len(checks) != 3 {
			t.Errorf("%d boxes in the device list, want 3", len(checks))
			return false
		}
		if !checks[2].Checked || !checks[2].Disabled() || checks[0].Checked {
			t.Errorf("boxes before ticking: the chosen one ticked %v and fixed %v, another ticked %v", checks[2].Checked, checks[2].Disabled(), checks[0].Checked)
		}
		tick(checks[0])
		tick(checks[1])
		if n := len(v.targets()); n != 3 {
			t.Errorf("%d targets after ticking two more, want 3", n)
			return false
		}
		if v.code.Visible() || len(v.many.codes) != 3 || !v.sendBtn.Disabled() {
			t.Errorf("code fields: single visible %v, %d per device, Send disabled %v", v.code.Visible(), len(v.many.codes), v.sendBtn.Disabled())
			return false
		}
		return true
	})
	h.check(func() bool {
		for _, p := range peers {
			e := v.many.codes["addr:"+p.addr()]
			if e == nil {
				t.Errorf("no code field for %s", p.addr())
				return false
			}
			test.Type(e, p.r.Code())
		}
		if v.sendBtn.Disabled() || v.hint.Text != "Ready to send to 3 devices" {
			t.Errorf("with every code: Send disabled %v, hint %q", v.sendBtn.Disabled(), v.hint.Text)
			return false
		}
		return true
	})
	h.tap(v.sendBtn)
	h.waitFor("every result", func() bool { return v.many.panel.back.Visible() })
	h.check(func() bool {
		p := v.many.panel
		if len(p.row) != 3 {
			t.Errorf("%d rows", len(p.row))
			return false
		}
		// Rows follow targets(): the chosen device (the third added),
		// then the ticked ones in the list's order.
		want := []string{"Sent 1 file, every file confirmed", "Sent 1 file, every file confirmed", explain(app.ErrDeclined).Headline}
		got := []string{p.row[0].status.Text, p.row[1].status.Text, p.row[2].status.Text}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("row %d: %q, want %q", i, got[i], want[i])
			}
		}
		if p.title.Text != "Sent to 2 of 3 devices" {
			t.Errorf("title %q", p.title.Text)
		}
		test.Tap(p.back)
		if !v.form.Visible() {
			t.Error("Back did not bring the form back")
		}
		return true
	})
	want, _ := os.ReadFile(src)
	for _, i := range []int{0, 2} {
		got, err := os.ReadFile(filepath.Join(peers[i].dir, "report.pdf"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("receiver %d: report.pdf did not arrive intact: %v", i, err)
		}
	}
	if n, _ := os.ReadDir(peers[1].dir); len(n) != 0 {
		t.Errorf("the receiver that declined has %d entries", len(n))
	}
	hv := h.historyRows(3)
	h.check(func() bool {
		got := map[string]event.History{}
		for _, r := range hv.recs {
			got[r.PeerAddr] = r
		}
		for i, p := range peers {
			want := stores.HistoryVerified
			if i == 1 {
				want = stores.HistoryDeclined
			}
			r, ok := got[p.addr()]
			if !ok || r.Direction != stores.HistorySent || r.Outcome != want || (want == stores.HistoryVerified) != (r.Files == 1) ||
				len(r.Paths) != 1 || r.Paths[0] != src || r.Auth != stores.HistoryByCode {
				t.Errorf("receiver %d (%s): record %+v (found %v), want %s", i, p.addr(), r, ok, want)
			}
		}
		return true
	})
}
