package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app/instance"
	"github.com/ferry-project/ferry/core/clipboard"
)

func TestParseArgs(t *testing.T) {
	cwd := "/home/ann/Pictures"
	for _, c := range []struct {
		args []string
		want Args
		err  string
	}{
		{nil, Args{}, ""},
		// A file manager's script passes names relative to the folder shown.
		{[]string{"beach.jpg", "/tmp/a b.txt"}, Args{Files: []string{"/home/ann/Pictures/beach.jpg", "/tmp/a b.txt"}}, ""},
		// The desktop entry's Exec line: ferry-gui -- %F.
		{[]string{"--", "/x/-rf", "ferry://not-a-link"}, Args{Files: []string{"/x/-rf", "/home/ann/Pictures/ferry:/not-a-link"}}, ""},
		{[]string{"file:///tmp/with%20space.txt"}, Args{Files: []string{"/tmp/with space.txt"}}, ""},
		{[]string{"ferry://192.168.1.2:41000?code=123456"}, Args{Link: "ferry://192.168.1.2:41000?code=123456"}, ""},
		{[]string{"--install-file-manager-actions"}, Args{InstallActions: true}, ""},
		{[]string{"--remove-file-manager-actions"}, Args{RemoveActions: true}, ""},
		{[]string{"-rf"}, Args{}, `unknown option "-rf"`},
		{[]string{"file://server/share/x"}, Args{}, "not a local file"},
		{[]string{"ferry://a:1", "f.txt"}, Args{}, "not both"},
		{[]string{"--install-file-manager-actions", "f.txt"}, Args{}, "take no files"},
	} {
		got, err := ParseArgs(c.args, cwd)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseArgs(%q): error %v, want one containing %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseArgs(%q) = %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
}

// readState reads the state file the UI writes.
func readState(t *testing.T, path string) state {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("state file: %v\n%s", err, b)
	}
	return st
}

func stateFile(path string) harnessOpt { return func(c *Config) { c.StateFile = path } }

// Files given on the command line are selected and the Send view shows;
// a path that does not exist is named in a dialog, and the others are
// kept, in order; the state file lists exactly what is selected.
func TestOpenFilesKeepsTheRest(t *testing.T) {
	sf := filepath.Join(t.TempDir(), "state.json")
	h := newHarness(t, noReceive, stateFile(sf))
	src := t.TempDir()
	a := writeFile(t, src, "holiday photo.jpg", 1200)
	b := writeFile(t, src, "notes.txt", 30)
	gone := filepath.Join(src, "moved away.pdf")
	h.loop.run(func() { h.u.ShowSettings() })

	var err error
	h.loop.run(func() { err = h.u.OpenFiles([]string{a, gone, b}) })
	if err == nil || !strings.Contains(err.Error(), "Nothing is at "+gone+": it may have been moved") || !strings.Contains(err.Error(), "The 2 other files were selected.") {
		t.Fatalf("OpenFiles error: %v", err)
	}
	h.check(func() bool {
		if got := h.u.send.sel.paths(); !reflect.DeepEqual(got, []string{a, b}) {
			t.Errorf("selected %q, want %q", got, []string{a, b})
			return false
		}
		if h.u.tabs.Selected() != h.u.sendTab {
			t.Error("the Send view is not showing")
			return false
		}
		return true
	})
	s := h.screen()
	for _, want := range []string{"Not everything could be selected", "moved away.pdf", "holiday photo.jpg", "notes.txt"} {
		if !contains(s, want) {
			t.Errorf("window does not show %q", want)
		}
	}
	st := readState(t, sf)
	if st.View != "send" || len(st.Send) != 2 || st.Send[0].Path != a || st.Send[1].Path != b || st.Send[0].Size != 1200 || !strings.Contains(st.Notice, gone) {
		t.Errorf("state file: %+v", st)
	}

	// All there: no message; the same file twice is selected once.
	h.loop.run(func() { err = h.u.OpenFiles([]string{b, src}) })
	if err != nil {
		t.Errorf("OpenFiles of existing paths: %v", err)
	}
	h.waitFor("the folder to be counted", func() bool {
		return len(h.u.send.sel.items) == 3 && !h.u.send.sel.items[2].Counting
	})
	if st := readState(t, sf); len(st.Send) != 3 || st.Send[2].Kind != "folder" || st.Send[2].Path != src {
		t.Errorf("state after adding a folder: %+v", st)
	}
}

// Nothing given exists: the message says so, and nothing is selected.
func TestOpenFilesNoneExist(t *testing.T) {
	h := newHarness(t, noReceive)
	var err error
	h.loop.run(func() { err = h.u.OpenFiles([]string{"/nonexistent/a", "/nonexistent/b"}) })
	if err == nil || !strings.Contains(err.Error(), "Nothing is at these 2 paths") || !strings.Contains(err.Error(), "Nothing else was given") {
		t.Errorf("error %v", err)
	}
	h.check(func() bool { return len(h.u.send.sel.items) == 0 })
}

// A second ferry-gui hands its files to the running app over the
// instance socket: the app selects them, and the second process is told
// to exit; a stale socket file (an app that crashed) is taken over.
func TestInstanceHandoff(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sock, err := instance.Socket(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A crashed app's leftover: a socket file nobody listens on.
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, noReceive)
	l, handed, err := instance.Claim(sock, instance.Handoff{})
	if err != nil || handed {
		t.Fatalf("first Claim: handed %v, %v", handed, err)
	}
	h.loop.run(func() { h.u.ServeInstance(l) })

	src := t.TempDir()
	a := writeFile(t, src, "a b.txt", 5)
	_, handed, err = instance.Claim(sock, instance.Handoff{Files: []string{a}})
	if err != nil || !handed {
		t.Fatalf("second Claim: handed %v, %v", handed, err)
	}
	h.check(func() bool {
		if got := h.u.send.sel.paths(); !reflect.DeepEqual(got, []string{a}) {
			t.Errorf("after the hand-off the selection is %q", got)
			return false
		}
		return true
	})
	// Another config folder is another device: its own socket.
	other, _ := instance.Socket(t.TempDir())
	if other == sock {
		t.Error("two config folders share one socket")
	}
}

// Send clipboard adds the clipboard's text as a text entry, sent as a
// snippet; with no text and no image it says the clipboard is empty.
func TestSendClipboardText(t *testing.T) {
	h := newHarness(t, noReceive)
	v := h.u.send
	h.loop.run(func() { h.app.Clipboard().SetContent("meeting at 10:30\nroom 4") })
	var btn *widget.Button
	h.loop.run(func() { btn = findButton(v.root, "Send clipboard") })
	if btn == nil {
		t.Fatal("no Send clipboard button")
	}
	h.tap(btn)
	h.check(func() bool {
		items := v.sel.transferItems()
		if len(items) != 1 || items[0].Text != "meeting at 10:30\nroom 4" || items[0].Path != "" {
			t.Errorf("items %+v", items)
			return false
		}
		return true
	})
	if s := h.screen(); !contains(s, "Clipboard text: “meeting at 10:30 room 4”") {
		t.Errorf("the list does not show the text:\n%s", s)
	}

	old := clipboardImage
	clipboardImage = func(ctx context.Context) ([]byte, error) { return nil, clipboard.ErrNoImage }
	defer func() { clipboardImage = old }()
	h.loop.run(func() { h.app.Clipboard().SetContent("") })
	h.tap(btn)
	h.waitFor("the empty-clipboard message", func() bool { return contains(test.RenderToMarkup(h.win.Canvas()), "The clipboard is empty") })
	h.check(func() bool { return len(v.sel.items) == 1 })
}

// With no text, an image from the platform clipboard is sent as a PNG
// file, removed when the app closes. The platform clipboard is stood in
// for here (Fyne's test clipboard has no images); the real one is read
// in core/clipboard's tests and under Xvfb.
func TestSendClipboardImage(t *testing.T) {
	h := newHarness(t, noReceive)
	v := h.u.send
	png := []byte("\x89PNG\r\n\x1a\nnot really an image")
	old := clipboardImage
	clipboardImage = func(ctx context.Context) ([]byte, error) { return png, nil }
	defer func() { clipboardImage = old }()
	h.loop.run(func() {
		h.app.Clipboard().SetContent("")
		v.addClipboard()
	})
	var path string
	h.waitFor("the image to be selected", func() bool {
		if len(v.sel.items) != 1 {
			return false
		}
		path = v.sel.items[0].Path
		return true
	})
	if b, err := os.ReadFile(path); err != nil || string(b) != string(png) || !strings.HasPrefix(filepath.Base(path), "clipboard-") {
		t.Fatalf("image file %s: %q %v", path, b, err)
	}
	h.u.Close()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the image's folder outlived the app: %v", err)
	}
}

func findButton(o fyne.CanvasObject, text string) *widget.Button {
	switch x := o.(type) {
	case *widget.Button:
		if x.Text == text {
			return x
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

// Files handed over while a send runs wait behind the progress panel,
// and "Send more" takes off only what was sent: the new file is there to
// send next. Real transfer over loopback to a receiver that asks, so the
// send is still running when the file arrives.
func TestFilesDuringASendStaySelected(t *testing.T) {
	loop := newUILoop(t)
	b := newHarnessOn(t, loop, named("Desk B")) // asks before accepting
	a := newHarnessOn(t, loop, noReceive, named("Laptop A"))
	b.u.Start()
	_, addr, code := b.listening()
	src := t.TempDir()
	first := writeFile(t, src, "first.txt", 100)
	later := writeFile(t, src, "later.txt", 50)
	v := a.u.send
	a.loop.run(func() {
		a.u.OpenFiles([]string{first})
		v.addr.SetText(addr)
		v.addAddress()
		v.code.SetText(code)
	})
	a.tap(v.sendBtn)
	b.waitFor("the offer", func() bool { return b.u.recv.offer != nil })
	a.loop.run(func() {
		if err := a.u.OpenFiles([]string{later}); err != nil {
			t.Errorf("OpenFiles during a send: %v", err)
		}
	})
	b.tap(b.u.recv.accept)
	a.waitFor("the send's result", func() bool { return v.prog.state == stateVerified && v.cancel == nil })
	var more *widget.Button
	a.loop.run(func() { more = findButton(v.root, "Send more") })
	if more == nil {
		t.Fatal("no Send more button")
	}
	a.tap(more)
	a.check(func() bool {
		if got := v.sel.paths(); !reflect.DeepEqual(got, []string{later}) {
			t.Errorf("after Send more the selection is %q, want only the file that came during the send", got)
			return false
		}
		return true
	})
}
