package tests

// The Windows desktop app, run for real: ferry-gui.exe, cross-built with
// mingw-w64 as make ferry-gui-windows builds it, under Debian's Wine 8.0
// (wine64) on a private Xvfb, its window drawn by Mesa's llvmpipe through
// Wine's OpenGL. It receives over loopback from the Linux ferry and from
// ferry.exe, both trusted devices, and each file lands in the app's
// Downloads folder as sent.
//
// Wine's gaps and what this test does about them are wine_test.go's
// (its workarounds 1 to 4), with one more consequence of workaround 2:
// the app built as make ferry-gui-windows builds it cannot place a
// received file under Wine 8.0 ("removing partial file: Invalid
// function", os.Root.Remove through a folder handle), so the test builds
// it again with the same -overlay file that sets Go's Deleteat fallback.
// Only package main is compiled again: make e2e builds
// bin/ferry-gui.exe first, and the cgo packages (Fyne, GLFW; minutes on a
// cold cache) come from the build cache.
//
// Wine 8.0 also lacks AF_UNIX sockets (socket() answers WSAEAFNOSUPPORT,
// "winapi error #10047"), which Windows 10 1803 and later have: the
// app's single-instance socket (core/app/instance's Claim) cannot listen, the app
// logs it and runs on, and a second ferry-gui here would open a second
// window. Nothing here starts a second one, so no workaround is needed.
//
// What is written beforehand, where the Windows app keeps it:
//   - the app's settings, Fyne's preferences.json under
//     %APPDATA%\fyne\io.github.ferry-project.ferry (gui/ui's keys): the
//     device name, the download folder (%USERPROFILE%\Downloads), "Ask
//     before accepting" on and "Accept trusted devices without asking"
//     on, so that a trusted device's offer is accepted without a click
//     and any other would wait for one;
//   - the app's key and trusted devices in %LOCALAPPDATA%\ferry, and the
//     senders' in theirs, written by core/app itself (the formats are
//     the same on every system). Both senders are trusted: the app
//     shows a new random code nobody here can read, so an untrusted
//     sender could not get in without a person; the test pins the keys
//     both ways, as pairing after a transfer with a code does (tests/
//     trust_test.go runs that flow).
//
// Networking stays on loopback: the app listens on 127.0.0.1 at a port
// the test picks (FERRY_LISTEN), with no mDNS (FERRY_NO_DISCOVERY), and
// the senders dial it with --to and --paired.

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/xdisplay"
	"github.com/ferry-project/ferry/tests/proc"
)

func TestWindowsAppUnderWine(t *testing.T) {
	began := time.Now()
	if testing.Short() {
		t.Skip("short: the windows app under Wine takes a minute or more")
	}
	testkit.NeedTool(t, "Xvfb", "the windows app's window")
	for _, tool := range []string{"xwininfo", "import", "identify"} {
		testkit.NeedTool(t, tool, "checking that the windows app's window rendered")
	}
	// The display first: wineboot starts Wine's desktop process, which
	// then draws the app's windows on it.
	display := xdisplay.Start(t, true)
	var gui string
	w := newWine(t, display, func(w *wine, dir string) []wineStep {
		gui = filepath.Join(dir, "ferry-gui.exe")
		return []wineStep{{"built ferry-gui.exe (cgo, mingw-w64) with the Deleteat fallback", func() error {
			return w.build(dir, "gui/ferry-gui", "main", true, "build", "-o", gui, "./gui/ferry-gui")
		}}}
	})
	t.Logf("set up in %v", time.Since(began).Round(10*time.Millisecond))

	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(w.prefix, "drive_c", "users", u.Username)
	winProfile := `C:\users\` + u.Username
	downloads := filepath.Join(profile, "Downloads")

	// The three devices: the app (its folder where the Windows app looks
	// for it), the Linux ferry, and ferry.exe with a folder of its own
	// (XDG_CONFIG_HOME, which ferry honours on Windows too).
	appConf := filepath.Join(profile, "AppData", "Local", "ferry")
	linuxHome := t.TempDir()
	winSender := t.TempDir()
	trustEachOther(t, appConf, "desk", filepath.Join(linuxHome, ".config", "ferry"), "laptop")
	trustEachOther(t, appConf, "desk", filepath.Join(winSender, "ferry"), "tablet")

	prefs := filepath.Join(profile, "AppData", "Roaming", "fyne", "io.github.ferry-project.ferry", "preferences.json")
	p, err := json.Marshal(map[string]any{
		"deviceName":         "desk",
		"downloadDir":        winProfile + `\Downloads`,
		"askBeforeAccepting": true,
		"autoAcceptTrusted":  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(prefs), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefs, p, 0o600); err != nil {
		t.Fatal(err)
	}

	addr := "127.0.0.1:" + freePort(t)
	appLog := filepath.Join(t.TempDir(), "ferry-gui.log")
	started := time.Now()
	stopApp := startWineApp(t, w, gui, appLog,
		"FERRY_LISTEN="+addr, "FERRY_NO_DISCOVERY=1",
		// The Linux values would mean nothing to a Windows program: the
		// app's folders are the Windows ones, its socket in %TEMP%.
		"XDG_CONFIG_HOME=", "XDG_RUNTIME_DIR=")
	defer stopApp()
	colours := waitRendered(t, display, appLog)
	t.Logf("the window rendered %v after the start (%d colours)", time.Since(started).Round(10*time.Millisecond), colours)
	waitListening(t, addr, appLog)
	t.Logf("the app listened on %s %v after the start", addr, time.Since(started).Round(10*time.Millisecond))

	t.Run("from the linux cli", func(t *testing.T) {
		src := randomFile(t, t.TempDir(), "from linux.bin", 3<<20, 11)
		send := proc.Start(t, linux(t, linuxHome, "send", "--to", addr, "--paired", "desk", "--json", src), true)
		receivedIntact(t, send, src, downloads, appLog)
	})
	t.Run("from ferry.exe", func(t *testing.T) {
		src := randomFile(t, t.TempDir(), "from windows ü.bin", 2<<20, 12)
		cmd := w.raw("env", "XDG_CONFIG_HOME="+winPath(winSender), w.wine64, w.exe,
			"send", "--to", addr, "--paired", "desk", "--json", winPath(src))
		receivedIntact(t, proc.Start(t, cmd, true), src, downloads, appLog)
	})
	t.Logf("the whole Windows app run: %v", time.Since(began).Round(10*time.Millisecond))
}

// trustEachOther makes the keys of the devices whose config folders are
// aDir and bDir (a Node there makes one, where the device keeps it) and
// pins each in the other's trusted devices under the other's name.
func trustEachOther(t *testing.T, aDir, aName, bDir, bName string) {
	t.Helper()
	key := func(dir string) []byte {
		n, err := app.New(app.Config{ConfigDir: dir, NoHistory: true})
		if err != nil {
			t.Fatalf("making the key in %s: %v", dir, err)
		}
		defer n.Close()
		return n.PublicKey()
	}
	a, b := key(aDir), key(bDir)
	for _, p := range []struct {
		dir  string
		peer stores.Device
	}{{aDir, stores.Device{Name: bName, Key: b}}, {bDir, stores.Device{Name: aName, Key: a}}} {
		store, err := stores.OpenTrust(p.dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Add(p.peer); err != nil {
			t.Fatalf("trusting %s in %s: %v", p.peer.Name, p.dir, err)
		}
	}
}

// startWineApp starts the Windows app under Wine with env added, its
// output going to logFile (a file, not a pipe: Wine's background
// processes share the app's standard streams and would hold a pipe open).
// The returned stop ends it; the prefix's wineserver ends the rest at the
// test's cleanup.
func startWineApp(t *testing.T, w *wine, exe, logFile string, env ...string) (stop func()) {
	t.Helper()
	log, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, env...), w.wine64, exe)
	cmd := w.raw("env", args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("starting the windows app: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		log.Close()
		close(exited)
	}()
	return func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}
}

// waitRendered waits for the window named Ferry to be shown on display
// with rendered content, and returns how many colours the screen holds:
// no window manager runs, so the window sits on the black root, and a
// blank or failed GL window adds one or two colours where Fyne's text and
// icons add hundreds.
func waitRendered(t *testing.T, display, appLog string) int {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "screen.png")
	deadline := time.Now().Add(3 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		out, err := exec.Command("xwininfo", "-display", display, "-name", "Ferry").CombinedOutput()
		switch {
		case err != nil:
			last = strings.TrimSpace(string(out))
		case !strings.Contains(string(out), "IsViewable"):
			last = "the window is not shown yet"
		default:
			if out, err := exec.Command("import", "-display", display, "-window", "root", shot).CombinedOutput(); err != nil {
				last = fmt.Sprintf("import: %v %s", err, out)
				break
			}
			out, err := exec.Command("identify", "-format", "%k", shot).Output()
			n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
			if err == nil && n >= 64 {
				return n
			}
			last = fmt.Sprintf("%d colours on screen (%v)", n, err)
		}
		time.Sleep(500 * time.Millisecond) // the X server has no event for "drawn"
	}
	logs, _ := os.ReadFile(appLog)
	t.Fatalf("the windows app's window did not render within 3 minutes (%s); its output:\n%s", last, logs)
	return 0
}

// waitListening waits until the app's receiver accepts connections on
// addr. A connection closed before its first byte is no guess at a code.
func waitListening(t *testing.T, addr, appLog string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(appLog)
			t.Fatalf("the windows app did not listen on %s within a minute (%v); its output:\n%s", addr, err, logs)
		}
		time.Sleep(200 * time.Millisecond) // nothing announces the listen but the port
	}
}

// receivedIntact waits for send, a trusted sender with --json, to end,
// and checks that it connected without a code, that it exited 0 (the app
// confirmed every byte) and that src is in downloads, byte for byte.
func receivedIntact(t *testing.T, send *proc.Proc, src, downloads, appLog string) {
	t.Helper()
	began := time.Now()
	o := nextOutcome(t, send, 2*time.Minute)
	code := send.Exit(30 * time.Second)
	if !o.ok() || code != 0 {
		logs, _ := os.ReadFile(appLog)
		t.Fatalf("the send exited %d (%v); stderr:\n%s\nthe app's output:\n%s", code, o.ev, send.StderrText(), logs)
	}
	if c := o.first("connected"); c == nil || c["paired"] != true {
		t.Errorf("the sender was not connected as a trusted device: %v", c)
	}
	got := filepath.Join(downloads, filepath.Base(src))
	if _, err := os.Stat(got); err != nil {
		t.Fatalf("the file is not in the app's Downloads folder: %v", err)
	}
	if h, want := blake3File(t, got), blake3File(t, src); h != want {
		t.Fatalf("BLAKE3 of %s is %s, the sent file's %s", got, h, want)
	}
	if p := partials(t, downloads); len(p) != 0 {
		t.Errorf("partial files left: %v", p)
	}
	t.Logf("%s arrived intact in %v", filepath.Base(src), time.Since(began).Round(10*time.Millisecond))
}
