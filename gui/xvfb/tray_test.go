package xvfb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
)

// The tray host: Fyne's tray on Linux is a StatusNotifierItem on the
// session D-Bus, shown by whatever host registered
// org.kde.StatusNotifierWatcher. Debian serves a small standalone pair:
// status-notifier-watcher (haskell-status-notifier-item-utils) and
// gtk-sni-tray-standalone (haskell-gtk-sni-tray-utils), a GTK bar that
// draws the items and opens their menus. A plain XEmbed tray
// (stalonetray, which Debian 12 no longer has) cannot show an SNI item.
var trayTools = []string{"Xvfb", "import", "convert", "xwininfo", "xdotool", "dbus-daemon", "dbus-monitor",
	"busctl", "status-notifier-watcher", "gtk-sni-tray-standalone"}

// TestTrayReceivesWithWindowClosed runs the real app with "Keep
// receiving in the tray" on, under Xvfb with a session bus and a tray
// host: the icon appears in the host's bar, its menu (read and clicked
// over D-Bus, the way the host does) shows the code; closing the window
// as a window manager would hides it; a trusted device's file then
// arrives with the window closed, notified over D-Bus and listed in the
// menu; Open Ferry shows the window again, and Quit ends the app.
func TestTrayReceivesWithWindowClosed(t *testing.T) {
	root := repoRoot(t)
	gui, cli := filepath.Join(root, "bin", "ferry-gui"), filepath.Join(root, "bin", "ferry")
	for _, b := range []string{gui, cli} {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("%s is missing: make e2e builds it", b)
		}
	}
	for _, tool := range trayTools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: tests/install-deps.sh installs it", tool)
		}
	}
	display, env, notes := trayHost(t)
	tmp := t.TempDir()
	bar := filepath.Join(tmp, "bar-empty.png")
	captureRegion(t, display, "220x30+0+0", bar)
	emptyColours := colours(t, bar)

	// The desktop (GUI) and a laptop (CLI) that trust each other.
	guiConf, laptop, downloads := filepath.Join(tmp, "gui-ferry"), filepath.Join(tmp, "laptop"), filepath.Join(tmp, "Downloads")
	os.MkdirAll(downloads, 0o755)
	pair(t, guiConf, "desk", filepath.Join(laptop, ".config", "ferry"), "laptop")
	prefs := filepath.Join(tmp, "config", "fyne", "io.github.ferry-project.ferry", "preferences.json")
	os.MkdirAll(filepath.Dir(prefs), 0o755)
	p, _ := json.Marshal(map[string]any{"keepReceivingInTray": true, "autoAcceptTrusted": true,
		"downloadDir": downloads, "deviceName": "desk"})
	if err := os.WriteFile(prefs, p, 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)

	app := exec.Command(gui)
	app.Env = append(env, "HOME="+tmp, "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"FERRY_CONFIG_DIR="+guiConf, "FERRY_NO_DISCOVERY=1", "FERRY_LISTEN=127.0.0.1:"+port)
	var logs strings.Builder
	app.Stdout, app.Stderr = &logs, &logs
	app.WaitDelay = 5 * time.Second
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			app.Process.Kill()
			<-exited
		}
	})

	// The window shows, and the item registers with the watcher.
	waitUntil(t, "the Ferry window", func() bool { return mapped(display) == "IsViewable" })
	var item string
	waitUntil(t, "Ferry's StatusNotifierItem", func() bool {
		out, _ := busctl(env, "get-property", "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
			"org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems")
		if m := regexp.MustCompile(`"([^"]+)"`).FindStringSubmatch(out); m != nil {
			item = strings.SplitN(m[1], "/", 2)[0]
		}
		return item != ""
	})
	var code string
	waitUntil(t, "the code in the tray menu", func() bool {
		for _, l := range menu(t, env, item) {
			if c, ok := strings.CutPrefix(l.label, "Code "); ok {
				code = c
				return true
			}
		}
		return false
	})
	t.Logf("tray item %s, menu %v", item, menu(t, env, item))

	// Close the window as a window manager's close button does.
	id, err := windowInfo(display, "Ferry")
	if err != nil {
		t.Fatal(err)
	}
	if err := closeWindow(display, id); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the window to hide", func() bool { return mapped(display) == "IsUnMapped" })
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("the app quit when its window closed (%v):\n%s", err, logs.String())
	default:
	}

	// The icon in the bar, now that no window covers it (no window
	// manager places them: both start at the top left). The empty bar
	// has one colour; with the icon, many.
	withIcon := filepath.Join(tmp, "bar.png")
	waitUntil(t, "the icon in the tray bar", func() bool {
		captureRegion(t, display, "220x30+0+0", withIcon)
		return colours(t, withIcon) >= emptyColours+16
	})
	t.Logf("tray bar: %d colours empty, %d with Ferry's icon", emptyColours, colours(t, withIcon))

	// A trusted device sends with the window closed.
	file := filepath.Join(tmp, "note.txt")
	os.WriteFile(file, []byte("arrived in the tray\n"), 0o644)
	send := exec.Command(cli, "send", "--to", "127.0.0.1:"+port, "--paired", "desk", "--name", "laptop", file)
	send.Env = append(os.Environ(), "HOME="+laptop, "XDG_CONFIG_HOME="+filepath.Join(laptop, ".config"))
	if out, err := send.CombinedOutput(); err != nil {
		t.Fatalf("send to the app in the tray: %v\n%s\napp:\n%s", err, out, logs.String())
	}
	if b, err := os.ReadFile(filepath.Join(downloads, "note.txt")); err != nil || string(b) != "arrived in the tray\n" {
		t.Fatalf("note.txt in the download folder: %q, %v", b, err)
	}
	var last []menuItem
	defer func() {
		if t.Failed() {
			t.Logf("the tray menu last read: %v", last)
		}
	}()
	waitUntil(t, "the transfer in the tray menu", func() bool {
		last = menu(t, env, item)
		for _, l := range last {
			// From the history file beside the key, as the app keeps one.
			if strings.HasPrefix(l.label, "✓ note.txt · 20 bytes · from laptop (trusted) · Today ") {
				return true
			}
		}
		return false
	})
	waitUntil(t, "the notifications", func() bool {
		s := notes.String()
		return strings.Contains(s, `"Receiving from laptop"`) && strings.Contains(s, `"Received from laptop"`)
	})
	if m := mapped(display); m != "IsUnMapped" {
		t.Errorf("the window is %s after a trusted transfer; want it still closed", m)
	}
	// The receiver waits again with nobody there. A trusted transfer
	// used no code, so the code stands (core/app replaces a code only
	// when a transfer used it), and a second trusted send gets in.
	waitUntil(t, "the same code in the tray menu", func() bool {
		l := menu(t, env, item)
		return len(l) > 0 && l[0].label == "Code "+code
	})
	second := filepath.Join(tmp, "later.txt")
	os.WriteFile(second, []byte("and again\n"), 0o644)
	again := exec.Command(cli, "send", "--to", "127.0.0.1:"+port, "--paired", "desk", "--name", "laptop", second)
	again.Env = send.Env
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("a second send to the app in the tray: %v\n%s\napp:\n%s", err, out, logs.String())
	}
	if b, err := os.ReadFile(filepath.Join(downloads, "later.txt")); err != nil || string(b) != "and again\n" {
		t.Fatalf("later.txt in the download folder: %q, %v", b, err)
	}

	// The menu as the host draws it, opened with a right click on the
	// icon, for the README; closed again with Escape.
	xdo(t, display, "mousemove", "15", "15", "click", "3")
	shot := filepath.Join(tmp, "menu.png")
	waitUntil(t, "the tray menu on screen", func() bool {
		captureRegion(t, display, "420x230+0+0", shot)
		return colours(t, shot) >= 64 && settledRegion(t, display, "420x230+0+0", shot)
	})
	// The code and the time differ in every run: the committed capture
	// is replaced only when it is missing (delete it to refresh).
	if dst := filepath.Join(root, "gui", "screenshots", "tray-menu.png"); !exists(dst) {
		keep(t, shot, dst)
	}
	xdo(t, display, "key", "Escape", "mousemove", "1500", "1000")

	// Open Ferry, then Quit, clicked as the host clicks them.
	click(t, env, item, "Open Ferry")
	waitUntil(t, "the window to show again", func() bool { return mapped(display) == "IsViewable" })
	click(t, env, item, "Quit")
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("the app quit with %v:\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Quit in the tray menu did not end the app:\n%s", logs.String())
	}
}

// TestTrayStartsHidden is the login item's start, ferry-gui --hidden,
// with the tray setting on: the tray item and its code come up with no
// window on screen, and Open Ferry shows the window.
func TestTrayStartsHidden(t *testing.T) {
	root := repoRoot(t)
	gui := filepath.Join(root, "bin", "ferry-gui")
	if _, err := os.Stat(gui); err != nil {
		t.Fatalf("%s is missing: make e2e builds it", gui)
	}
	for _, tool := range trayTools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: tests/install-deps.sh installs it", tool)
		}
	}
	display, env, _ := trayHost(t)
	tmp := t.TempDir()
	prefs := filepath.Join(tmp, "config", "fyne", "io.github.ferry-project.ferry", "preferences.json")
	os.MkdirAll(filepath.Dir(prefs), 0o755)
	if err := os.WriteFile(prefs, []byte(`{"keepReceivingInTray":true,"downloadDir":"`+tmp+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	app := exec.Command(gui, "--hidden")
	app.Env = append(env, "HOME="+tmp, "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"FERRY_CONFIG_DIR="+filepath.Join(tmp, "ferry"), "FERRY_NO_DISCOVERY=1", "FERRY_LISTEN=127.0.0.1:0")
	var logs output
	app.Stdout, app.Stderr = &logs, &logs
	app.WaitDelay = 5 * time.Second
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			app.Process.Kill()
			<-exited
		}
	})
	var item string
	waitUntil(t, "Ferry's StatusNotifierItem", func() bool {
		out, _ := busctl(env, "get-property", "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
			"org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems")
		if m := regexp.MustCompile(`"([^"]+)"`).FindStringSubmatch(out); m != nil {
			item = strings.SplitN(m[1], "/", 2)[0]
		}
		return item != ""
	})
	waitUntil(t, "the code in the tray menu", func() bool {
		l := menu(t, env, item)
		return len(l) > 0 && strings.HasPrefix(l[0].label, "Code ")
	})
	if m := mapped(display); m == "IsViewable" {
		t.Errorf("started with --hidden and the tray on, the window shows")
	}
	click(t, env, item, "Open Ferry")
	waitUntil(t, "the window to show", func() bool { return mapped(display) == "IsViewable" })
	click(t, env, item, "Quit")
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("the app quit with %v:\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Quit did not end the app:\n%s", logs.String())
	}
}

// trayHost starts Xvfb, a private session bus with a notification
// monitor on it, and the tray host, and returns the display, the
// environment that reaches them, and what the monitor saw.
func trayHost(t *testing.T) (display string, env []string, notes *output) {
	t.Helper()
	display = startXvfb(t)
	bus := startBus(t)
	env = append(os.Environ(), "DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+bus)

	// Every notification the app sends, as the bus carries it (no
	// notification daemon runs: the calls fail, but they are seen).
	notes = startBackground(t, env, "dbus-monitor", "--session", "type='method_call',interface='org.freedesktop.Notifications'")
	startBackground(t, env, "status-notifier-watcher")
	waitUntil(t, "the StatusNotifierWatcher on the bus", func() bool {
		out, _ := busctl(env, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", "org.kde.StatusNotifierWatcher")
		return strings.TrimSpace(out) == "b true"
	})
	startBackground(t, env, "gtk-sni-tray-standalone")
	waitUntil(t, "the tray bar", func() bool {
		_, err := windowInfo(display, "gtk-sni-tray-standalone")
		return err == nil
	})
	return display, env, notes
}

// pair creates both devices' keys where each keeps it and pins each in
// the other's store, as a transfer with a code and two yeses would.
func pair(t *testing.T, aDir, aName, bDir, bName string) {
	t.Helper()
	a, b := deviceKey(t, aDir), deviceKey(t, bDir)
	for _, p := range []struct {
		dir  string
		peer stores.Device
	}{{aDir, stores.Device{Name: bName, Key: b}}, {bDir, stores.Device{Name: aName, Key: a}}} {
		store, err := stores.OpenTrust(p.dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Add(p.peer); err != nil {
			t.Fatal(err)
		}
	}
}

// deviceKey makes the key of the device whose config folder is dir,
// where the device keeps it (a Node there makes it), and returns its
// public half.
func deviceKey(t *testing.T, dir string) []byte {
	t.Helper()
	n, err := app.New(app.Config{ConfigDir: dir, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	return n.PublicKey()
}

// startBus starts a private session bus and returns its address.
func startBus(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting dbus-daemon: %v", err)
	}
	stopOnCleanup(t, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// output collects a background process's stdout.
type output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// startBackground starts a helper that runs until the test ends.
func startBackground(t *testing.T, env []string, name string, args ...string) *output {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	o := &output{}
	cmd.Stdout, cmd.Stderr = o, o
	// A child that keeps the pipe open must not hold up Wait.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	stopOnCleanup(t, cmd)
	return o
}

// stopOnCleanup ends cmd with SIGTERM when the test ends, SIGKILL if it
// lingers.
func stopOnCleanup(t *testing.T, cmd *exec.Cmd) {
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// waitUntil polls cond: these are external processes, with nothing to
// wait on but their effects.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func busctl(env []string, args ...string) (string, error) {
	cmd := exec.Command("busctl", append([]string{"--user"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

type menuItem struct {
	id    int
	label string
}

// menu reads the item's menu over com.canonical.dbusmenu, as a tray host
// does: the top level's labels in order, separators left out.
func menu(t *testing.T, env []string, item string) []menuItem {
	t.Helper()
	out, err := busctl(env, "--json=short", "call", item, "/StatusNotifierMenu", "com.canonical.dbusmenu", "GetLayout", "iias", "0", "--", "-1", "0")
	if err != nil {
		return nil
	}
	var reply struct {
		Data []json.RawMessage `json:"data"`
	}
	if json.Unmarshal([]byte(out), &reply) != nil || len(reply.Data) < 2 {
		return nil
	}
	var layout []json.RawMessage // [id, props, children]
	if json.Unmarshal(reply.Data[1], &layout) != nil || len(layout) < 3 {
		return nil
	}
	var children []struct {
		Data []json.RawMessage `json:"data"`
	}
	json.Unmarshal(layout[2], &children)
	var items []menuItem
	for _, c := range children {
		if len(c.Data) < 2 {
			continue
		}
		var id int
		var props map[string]struct {
			Data any `json:"data"`
		}
		json.Unmarshal(c.Data[0], &id)
		json.Unmarshal(c.Data[1], &props)
		if l, ok := props["label"].Data.(string); ok {
			items = append(items, menuItem{id, l})
		}
	}
	return items
}

// click sends the dbusmenu "clicked" event for the item labelled label.
func click(t *testing.T, env []string, item, label string) {
	t.Helper()
	for _, m := range menu(t, env, item) {
		if m.label == label {
			if out, err := busctl(env, "call", item, "/StatusNotifierMenu", "com.canonical.dbusmenu", "Event",
				"isvu", strconv.Itoa(m.id), "clicked", "s", "", "0"); err != nil {
				t.Fatalf("clicking %s: %v\n%s", label, err, out)
			}
			return
		}
	}
	t.Fatalf("no %q in the tray menu %v", label, menu(t, env, item))
}

var idRE = regexp.MustCompile(`Window id: (0x[0-9a-f]+)`)

// windowInfo finds a window by name and returns its id.
func windowInfo(display, name string) (uint32, error) {
	cmd := exec.Command("xwininfo", "-name", name)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("no window %s: %s", name, strings.TrimSpace(string(out)))
	}
	m := idRE.FindStringSubmatch(string(out))
	if m == nil {
		return 0, fmt.Errorf("unreadable xwininfo output: %s", out)
	}
	id, err := strconv.ParseUint(m[1], 0, 32)
	return uint32(id), err
}

var mapRE = regexp.MustCompile(`Map State: (\w+)`)

// mapped is the Ferry window's map state (IsViewable, IsUnMapped), or ""
// when there is none.
func mapped(display string) string {
	cmd := exec.Command("xwininfo", "-name", "Ferry")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, _ := cmd.CombinedOutput()
	if m := mapRE.FindStringSubmatch(string(out)); m != nil {
		return m[1]
	}
	return ""
}

func captureRegion(t *testing.T, display, geometry, dst string) {
	t.Helper()
	raw := dst + ".root.png"
	if err := run(display, "import", "-window", "root", raw); err != nil {
		t.Fatal(err)
	}
	if err := run(display, "convert", raw, "-crop", geometry, "+repage", "-strip", dst); err != nil {
		t.Fatal(err)
	}
	os.Remove(raw)
}

// settledRegion captures the region again and reports whether it looks
// the same as shot (a menu still drawing does not).
func settledRegion(t *testing.T, display, geometry, shot string) bool {
	again := shot + ".again.png"
	captureRegion(t, display, geometry, again)
	defer os.Remove(again)
	return differingPixels(shot, again) == 0
}

func colours(t *testing.T, png string) int {
	t.Helper()
	n, err := countColours("", png)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestCloseQuitsWithoutTray: with the tray setting off (the default),
// closing the window as a window manager does ends the app, exit 0.
func TestCloseQuitsWithoutTray(t *testing.T) {
	root := repoRoot(t)
	gui := filepath.Join(root, "bin", "ferry-gui")
	if _, err := os.Stat(gui); err != nil {
		t.Fatalf("%s is missing: make e2e builds it", gui)
	}
	display := startXvfb(t)
	tmp := t.TempDir()
	app := exec.Command(gui)
	app.Env = append(os.Environ(), "DISPLAY="+display, "HOME="+tmp, "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"FERRY_CONFIG_DIR="+filepath.Join(tmp, "ferry"), "FERRY_NO_DISCOVERY=1", "FERRY_LISTEN=127.0.0.1:0")
	var logs output
	app.Stdout, app.Stderr = &logs, &logs
	app.WaitDelay = 5 * time.Second
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			app.Process.Kill()
			<-exited
		}
	})
	waitUntil(t, "the Ferry window", func() bool { return mapped(display) == "IsViewable" })
	id, err := windowInfo(display, "Ferry")
	if err != nil {
		t.Fatal(err)
	}
	if err := closeWindow(display, id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("the app ended with %v:\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("closing the window did not end the app:\n%s", logs.String())
	}
}
