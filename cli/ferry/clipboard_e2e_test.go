//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/testkit/xdisplay"
	"github.com/ferry-project/ferry/tests/proc"
)

// onDisplay runs cmd as home on the X display, with the real clipboard
// that xclip serves there.
func onDisplay(t *testing.T, display, home string, args ...string) *exec.Cmd {
	// proc.Start sets the environment itself; env(1) adds the display.
	pre := []string{"-u", "WAYLAND_DISPLAY", "DISPLAY=" + display, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), proc.Ferry(t)}
	return exec.Command("env", append(pre, args...)...)
}

func xclip(t *testing.T, display string, in string) string {
	t.Helper()
	args := []string{"-selection", "clipboard", "-o"}
	if in != "" {
		args = []string{"-selection", "clipboard", "-i"}
	}
	cmd := exec.Command("xclip", args...)
	cmd.Env = xdisplay.Env(display)
	if in != "" {
		cmd.Stdin = strings.NewReader(in)
		if err := cmd.Run(); err != nil {
			t.Fatalf("xclip -i: %v", err)
		}
		clipboardHolds(t, display, "text/plain", func(out string) bool { return out == in })
		return ""
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xclip -o: %v", err)
	}
	return string(out)
}

// clipboardHolds waits until the X clipboard, read as target, is what
// ok wants: xclip -i returns once it has forked, and its child takes the
// selection a moment later, so a transfer started at once could still
// meet what was there before (as one CI run did: an image sent as the
// text before it).
func clipboardHolds(t *testing.T, display, target string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		cmd := exec.Command("xclip", "-selection", "clipboard", "-t", target, "-o")
		cmd.Env = xdisplay.Env(display)
		out, _ := cmd.Output()
		if ok(string(out)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clipboard, read as %s, is still %q after 10 s", target, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pair makes two homes trust each other's keys, as a transfer with a code
// and two yeses would (TestE2ETrustOnLoopback covers that path).
func pair(t *testing.T, a, aName, b, bName string) {
	t.Helper()
	idA := homeKey(t, a)
	idB := homeKey(t, b)
	if err := homeStore(a).Add(stores.Device{Name: bName, Key: idB}); err != nil {
		t.Fatal(err)
	}
	if err := homeStore(b).Add(stores.Device{Name: aName, Key: idA}); err != nil {
		t.Fatal(err)
	}
}

// TestE2EClipboardX11 sends what a real X clipboard holds with
// --clipboard, and receives with --to-clipboard: from a sender with the
// code and no terminal to ask, the text is shown but the receiver's
// clipboard is left alone; from a trusted device it lands on the
// clipboard. An image on the clipboard arrives as a PNG file. Sender and receiver share one X server, as two programs on
// one desktop would; what each put there is read back with xclip.
func TestE2EClipboardX11(t *testing.T) {
	// As root, make test has run tests/install-deps.sh: a missing tool is
	// a failure there, not a skip.
	ci := os.Geteuid() == 0
	if _, err := exec.LookPath("xclip"); err != nil {
		if ci {
			t.Fatal("xclip is not installed: tests/install-deps.sh installs it")
		}
		t.Skip("xclip is not installed (tests/install-deps.sh installs it): no X11 clipboard tool to test with")
	}
	display := xdisplay.Start(t, ci)
	deskHome, laptopHome := t.TempDir(), t.TempDir()
	const copied = "scp build.tar.gz desk:~/ # copied on the laptop\nsecond line"

	// 1. By code: shown, not copied.
	xclip(t, display, copied)
	recv := proc.Start(t, onDisplay(t, display, deskHome, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json",
		"--yes", "--to-clipboard", "--code", "271828", "--dir", t.TempDir()), true)
	ev := recv.Until("listening", 20*time.Second)
	addr := "127.0.0.1:" + jsonNumber(ev["port"])
	sent := proc.Start(t, onDisplay(t, display, laptopHome, "send", "--to", addr, "--code", "271828", "--json", "--clipboard"), true)
	if c := sent.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("send --clipboard: exit %d\n%s%v", c, sent.StderrText(), drain(sent))
	}
	text := recv.Until("text", 20*time.Second)
	if text["text"] != copied {
		t.Errorf("received text %q, want the clipboard's %q", text["text"], copied)
	}
	// Sender and receiver share this X clipboard, which holds the same
	// text already: what shows that the receiver left it alone is its
	// warning (part 2 shows a copy replacing what was there).
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("receive: exit %d\n%s", c, recv.StderrText())
	}
	if s := recv.StderrText(); !strings.Contains(s, "was not put on the clipboard") || !strings.Contains(s, "not a trusted device") {
		t.Errorf("receiver stderr does not say the text stayed off the clipboard:\n%s", s)
	}

	// 2. Trusted device: on the clipboard at once.
	pair(t, deskHome, "desk", laptopHome, "laptop")
	xclip(t, display, "something else entirely")
	recv = proc.Start(t, onDisplay(t, display, deskHome, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json",
		"--accept-trusted", "--to-clipboard", "--name", "desk", "--dir", t.TempDir()), true)
	ev = recv.Until("listening", 20*time.Second)
	addr = "127.0.0.1:" + jsonNumber(ev["port"])
	sent = proc.Start(t, onDisplay(t, display, laptopHome, "send", "--to", addr, "--paired", "desk", "--json", "--text", "from a trusted laptop"), true)
	if c := sent.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("paired send: exit %d\n%s%v", c, sent.StderrText(), drain(sent))
	}
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("paired receive: exit %d\n%s", c, recv.StderrText())
	}
	if got := xclip(t, display, ""); got != "from a trusted laptop" {
		t.Errorf("clipboard after a trusted device's text: %q", got)
	}

	// 3. An image on the clipboard arrives as a PNG file.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR not a real picture, but PNG to the tools")
	file := filepath.Join(t.TempDir(), "shot.png")
	os.WriteFile(file, png, 0o644)
	put := exec.Command("xclip", "-selection", "clipboard", "-t", "image/png", "-i", file)
	put.Env = xdisplay.Env(display)
	if err := put.Run(); err != nil {
		t.Fatal(err)
	}
	clipboardHolds(t, display, "TARGETS", func(out string) bool { return strings.Contains(out, "image/png") })
	dest := t.TempDir()
	recv = proc.Start(t, onDisplay(t, display, deskHome, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json",
		"--yes", "--code", "161803", "--dir", dest), true)
	ev = recv.Until("listening", 20*time.Second)
	addr = "127.0.0.1:" + jsonNumber(ev["port"])
	sent = proc.Start(t, onDisplay(t, display, laptopHome, "send", "--to", addr, "--code", "161803", "--json", "--clipboard"), true)
	if c := sent.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("send --clipboard with an image: exit %d\n%s%v", c, sent.StderrText(), drain(sent))
	}
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("receive of the image: exit %d\n%s", c, recv.StderrText())
	}
	got, _ := filepath.Glob(filepath.Join(dest, "clipboard-*.png"))
	if len(got) != 1 {
		t.Fatalf("received %v, want one clipboard-*.png", got)
	}
	if b, _ := os.ReadFile(got[0]); string(b) != string(png) {
		t.Errorf("%s holds %q, want the clipboard's PNG", got[0], b)
	}
}

// TestE2EClipboardNoDisplay: --clipboard without any session fails
// before connecting, naming why, and sends nothing.
func TestE2EClipboardNoDisplay(t *testing.T) {
	cmd := ferryCmd(t, "send", "--to", "127.0.0.1:9", "--code", "123456", "--clipboard")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	_, stderr, code := proc.Run(t, cmd)
	if code == exitOK || !strings.Contains(stderr, "reading the clipboard") || !strings.Contains(stderr, "DISPLAY") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "connecting") {
		t.Errorf("it connected before reading the clipboard:\n%s", stderr)
	}
}

func jsonNumber(v any) string {
	f, _ := v.(float64)
	return strconv.Itoa(int(f))
}

// drain is what a finished process printed as events, for a failure.
func drain(p *proc.Proc) []map[string]any {
	var evs []map[string]any
	for ev := range p.Events {
		evs = append(evs, ev)
	}
	return evs
}
