// Package xdisplay starts a private virtual X server (Xvfb) for a test,
// for the tests that need a real X clipboard or a real window: the
// clipboard package's, the ferry command's --clipboard and
// --to-clipboard, and the desktop app's. The server picks a free display
// itself (-displayfd), listens on no TCP port, never resets when its last
// client leaves (-noreset: a reset drops a connection still in its
// setup, as happens when probes come and go while a program starts), and is stopped with
// SIGTERM at the test's cleanup so it removes its lock and socket.
package xdisplay

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Start starts Xvfb and returns its display (":N"). It skips the test
// when Xvfb is not installed and need is false; with need true it fails,
// naming the package to install (tests/install-deps.sh installs it).
func Start(t testing.TB, need bool) string {
	t.Helper()
	return StartScreen(t, need, "1280x800x24")
}

// StartScreen is Start with a screen of the given geometry (Xvfb's
// WIDTHxHEIGHTxDEPTH).
func StartScreen(t testing.TB, need bool, screen string) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if need {
			t.Fatal("Xvfb is not installed: tests/install-deps.sh installs it (package xvfb)")
		}
		t.Skip("Xvfb is not installed (package xvfb): no X display to test the real clipboard on")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		stopped := make(chan struct{})
		go func() { cmd.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-stopped
		}
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb exited without reporting a display")
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not report a display within 30s")
	}
	return ""
}

// Env is os.Environ for a program on display: DISPLAY set, and no
// WAYLAND_DISPLAY, so clipboard tools use the X server under test even
// when the test itself runs inside a Wayland session.
func Env(display string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	return append(env, "DISPLAY="+display)
}
