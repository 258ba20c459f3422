package ui

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/platform"
)

// trayApp is the test app with a system tray and a notification log. It
// stands in for the desktop driver's tray, which needs a display and a
// D-Bus tray host (gui/xvfb tests the real one): the tray's menu and icon
// are recorded as the driver would receive them.
type trayApp struct {
	fyne.App
	mu    sync.Mutex
	menu  *fyne.Menu
	icons int
	notes []*fyne.Notification
	quits int
}

// SetSystemTrayMenu keeps the menu as it is now: the UI goes on
// changing its Items on the UI goroutine (and hands it over again each
// time), while the test reads it on its own.
func (a *trayApp) SetSystemTrayMenu(m *fyne.Menu) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.menu = &fyne.Menu{Label: m.Label, Items: append([]*fyne.MenuItem(nil), m.Items...)}
}

func (a *trayApp) SetSystemTrayIcon(fyne.Resource) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.icons++
}

func (a *trayApp) SetSystemTrayWindow(fyne.Window) {}

func (a *trayApp) SendNotification(n *fyne.Notification) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notes = append(a.notes, n)
}

func (a *trayApp) quit() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.quits++
}

// labels lists the tray menu's items; separators are "--".
func (a *trayApp) labels() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.menu == nil {
		return nil
	}
	var out []string
	for _, it := range a.menu.Items {
		if it.IsSeparator {
			out = append(out, "--")
			continue
		}
		out = append(out, it.Label)
	}
	return out
}

func (a *trayApp) item(label string) *fyne.MenuItem {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range a.menu.Items {
		if it.Label == label {
			return it
		}
	}
	return nil
}

func (a *trayApp) notifications() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, n := range a.notes {
		out = append(out, n.Title+": "+n.Content)
	}
	return out
}

// withTray gives the harness a tray app; its Quit is recorded.
func withTray(ta *trayApp) harnessOpt {
	return func(c *Config) {
		ta.App = c.App
		c.App = ta
		c.Quit = ta.quit
	}
}

// setTray ticks or unticks "Keep receiving in the tray" and saves.
func (h *harness) setTray(on bool) {
	h.loop.run(func() {
		s := h.u.settings
		s.background.tray.SetChecked(on)
		s.save()
	})
}

func TestCloseHidesInTrayWhenOnQuitsWhenOff(t *testing.T) {
	ta := &trayApp{}
	h := newHarness(t, withTray(ta))
	h.u.Start()
	h.listening()

	// Off (the default): closing the window quits, and there is no tray.
	h.loop.run(h.u.WindowCloseRequested)
	if ta.quits != 1 || ta.labels() != nil || h.u.WindowHidden() {
		t.Fatalf("setting off: quits=%d tray=%q hidden=%v; want the app to quit with no tray", ta.quits, ta.labels(), h.u.WindowHidden())
	}

	h.setTray(true)
	if !h.app.Preferences().Bool(prefTray) {
		t.Error("the tray setting was not stored")
	}
	if ta.labels() == nil {
		t.Fatal("saving the setting installed no tray menu")
	}
	h.loop.run(h.u.WindowCloseRequested)
	if ta.quits != 1 || !h.u.WindowHidden() {
		t.Fatalf("setting on: quits=%d hidden=%v; want the window hidden, the app running", ta.quits, h.u.WindowHidden())
	}
	// "Open Ferry" brings it back on the Receive view.
	h.loop.run(func() {
		h.u.ShowSettings()
		ta.item("Open Ferry").Action()
	})
	h.check(func() bool {
		if h.u.WindowHidden() || h.u.tabs.Selected() != h.u.recvTab {
			t.Errorf("after Open Ferry: hidden=%v tab=%s", h.u.WindowHidden(), h.u.tabs.Selected().Text)
			return false
		}
		return true
	})
	h.loop.run(func() { ta.item("Quit").Action() })
	if ta.quits != 2 {
		t.Errorf("the tray's Quit did not quit (quits=%d)", ta.quits)
	}

	// Off again: closing quits again.
	h.setTray(false)
	h.loop.run(h.u.WindowCloseRequested)
	if ta.quits != 3 {
		t.Errorf("setting off again: closing did not quit (quits=%d)", ta.quits)
	}
}

// TestTrayMenuShowsCodeAndTransfers receives with the window in the
// tray: the menu shows the code; a transfer by code raises the offer
// dialog and the window; the menu then lists the transfer, and the
// receiver listens again by itself under a new code, shown in the menu.
func TestTrayMenuShowsCodeAndTransfers(t *testing.T) {
	ta := &trayApp{}
	h := newHarness(t, withTray(ta))
	h.app.Preferences().SetBool(prefTray, true)
	h.u.Start()
	_, _, code := h.listening()
	h.loop.run(h.u.WindowCloseRequested)
	if got := ta.labels(); len(got) < 5 || got[0] != "Code "+code || got[2] != "No transfers yet" ||
		got[len(got)-2] != "Open Ferry" || got[len(got)-1] != "Quit" {
		t.Fatalf("tray menu %q; want the code %s, no transfers, Open Ferry, Quit", got, code)
	}
	if !ta.item("Quit").IsQuit {
		t.Error("Quit is not the menu's quit item (the driver would add a second one)")
	}

	// A stranger sends with the code: the window comes back with the
	// offer, and nothing is notified.
	stranger := newDevice(t, "Laptop")
	src := writeFile(t, t.TempDir(), "report.pdf", 3000)
	done := sendFrom(t, h, stranger, false, event.Item{Path: src})
	rv := h.u.recv
	h.waitFor("the offer dialog", func() bool { return rv.offer != nil })
	h.check(func() bool {
		if h.u.WindowHidden() {
			t.Error("an offer that needs the person left the window in the tray")
			return false
		}
		return true
	})
	if n := ta.notifications(); len(n) != 0 {
		t.Errorf("notifications for an offer that asks: %q", n)
	}
	h.tap(rv.accept)
	if err := <-done; err != nil {
		t.Fatalf("send: %v", err)
	}
	h.waitFor("the result", func() bool { return rv.prog.state == stateVerified })
	got := ta.labels()
	if len(got) < 3 || !strings.HasPrefix(got[2], "✓ report.pdf from Laptop · ") {
		t.Errorf("tray menu after the transfer: %q; want it listed", got)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "report.pdf")); err != nil {
		t.Errorf("the file did not arrive: %v", err)
	}

	// Back into the tray: the receiver listens again, under a new code.
	h.loop.run(h.u.WindowCloseRequested)
	_, _, code2 := h.listening()
	if code2 == code {
		t.Errorf("the receiver listens again under the used code %s", code)
	}
	h.waitFor("the new code in the tray", func() bool { return ta.labels()[0] == "Code "+code2 })
}

// TestTrustedTransferNotifiesInTray: with auto-accept for trusted
// devices, a trusted sender's files go straight to the download folder
// while the window stays in the tray, with a notification at the start
// and at the end, and the receiver then waits again by itself.
func TestTrustedTransferNotifiesInTray(t *testing.T) {
	ta := &trayApp{}
	h := newHarness(t, withTray(ta))
	h.app.Preferences().SetBool(prefTray, true)
	h.app.Preferences().SetBool(prefAutoTrusted, true)
	sender := newDevice(t, "Laptop")
	h.pin("Laptop", sender)
	h.u.Start()
	h.listening()
	h.loop.run(h.u.WindowCloseRequested)

	src := writeFile(t, t.TempDir(), "photo.jpg", 5000)
	if err := <-sendFrom(t, h, sender, true, event.Item{Path: src}); err != nil {
		t.Fatalf("paired send: %v", err)
	}
	rv := h.u.recv
	h.waitFor("the receiver to wait again", func() bool { return rv.waiting() && !rv.busy && rv.gen > 1 })
	notes := ta.notifications()
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "Receiving from Laptop: 1 file (5.00 kB), into "+h.dir) ||
		notes[1] != "Received from Laptop: photo.jpg, verified, in "+h.dir {
		t.Errorf("notifications %q; want the start and the end of the transfer", notes)
	}
	h.check(func() bool {
		if rv.offers != 0 || !h.u.WindowHidden() {
			t.Errorf("offers=%d hidden=%v; want no dialog and the window still in the tray", rv.offers, h.u.WindowHidden())
			return false
		}
		return true
	})
	if b, err := os.ReadFile(filepath.Join(h.dir, "photo.jpg")); err != nil || len(b) != 5000 {
		t.Errorf("photo.jpg in the download folder: %d bytes, %v", len(b), err)
	}
	if got := ta.labels(); len(got) < 3 || !strings.HasPrefix(got[2], "✓ photo.jpg from Laptop") {
		t.Errorf("tray menu %q; want the transfer listed", got)
	}
}

// TestStartAtLoginWritesAutostart ticks and unticks "Start at login" and
// checks the XDG autostart file that Save writes and removes.
func TestStartAtLoginWritesAutostart(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	item := platform.LoginItem{ID: "io.github.ferry-project.ferry", Name: "Ferry",
		Command: []string{"/usr/bin/ferry-gui", "--hidden"}}
	h := newHarness(t, noReceive, func(c *Config) { c.Autostart = item })
	path := filepath.Join(cfg, "autostart", "io.github.ferry-project.ferry.desktop")
	s := h.u.settings
	h.check(func() bool {
		if s.background.autostart.Checked || s.background.autostart.Disabled() {
			t.Errorf("Start at login: checked=%v disabled=%v; want off and available", s.background.autostart.Checked, s.background.autostart.Disabled())
			return false
		}
		return true
	})
	h.loop.run(func() {
		s.background.autostart.SetChecked(true)
		s.save()
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("Save with Start at login wrote no autostart file: %v", err)
	}
	if !strings.Contains(string(b), "\nExec=/usr/bin/ferry-gui --hidden\n") {
		t.Errorf("autostart file:\n%s\nwant Exec=/usr/bin/ferry-gui --hidden", b)
	}
	// Loaded again, the box reads the file.
	h.loop.run(func() {
		s.load()
		if !s.background.autostart.Checked {
			t.Error("with the file there, Start at login shows unticked")
		}
		s.background.autostart.SetChecked(false)
		s.save()
	})
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unticked and saved, the autostart file is still there: %v", err)
	}
}

// TestAppIcon checks that the icon is the packaged one, rendered.
func TestAppIcon(t *testing.T) {
	dist, err := os.ReadFile(filepath.Join("..", "..", "cli", "ferry-dist", "assets", "ferry.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if string(dist) != string(iconSVG) {
		t.Error("gui/ui/icon.svg differs from cli/ferry-dist/assets/ferry.svg: copy the packaged icon")
	}
	img, err := png.Decode(bytes.NewReader(AppIcon().Content()))
	if err != nil {
		t.Fatal(err)
	}
	colours := map[color.Color]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			colours[img.At(x, y)] = true
		}
	}
	if b.Dx() != iconSize || b.Dy() != iconSize || len(colours) < 8 {
		t.Errorf("icon %v with %d colours; want %d px square and drawn", b, len(colours), iconSize)
	}
}

// TestTrayListsHistory: with a history file, the tray's recent
// transfers are its records, newest first, the ones from before this
// run included.
func TestTrayListsHistory(t *testing.T) {
	ta := &trayApp{}
	dir := filepath.Join(t.TempDir(), "config")
	store, err := stores.OpenHistory(dir)
	if err != nil {
		t.Fatal(err)
	}
	earlier := event.History{At: time.Date(2025, 6, 14, 9, 30, 0, 0, time.Local).UTC().Format(time.RFC3339Nano), Direction: stores.HistorySent,
		PeerName: "Maya's phone", Files: 1, Bytes: 2000, Names: []string{"plan.pdf"}, Outcome: stores.HistoryVerified}
	if _, err := store.Add(earlier); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withTray(ta), withNode(t, app.Config{ConfigDir: dir}))
	h.app.Preferences().SetBool(prefTray, true)
	h.u.Start()
	h.listening()
	h.waitFor("the tray menu", func() bool { return ta.labels() != nil })
	if got := ta.labels(); len(got) < 3 || got[2] != "✓ plan.pdf · 2.00 kB · to Maya's phone · Jun 14, 2025" {
		t.Fatalf("tray menu %q; want the earlier transfer from the history", got)
	}

	stranger := newDevice(t, "Laptop")
	src := writeFile(t, t.TempDir(), "report.pdf", 3000)
	done := sendFrom(t, h, stranger, false, event.Item{Path: src})
	rv := h.u.recv
	h.waitFor("the offer dialog", func() bool { return rv.offer != nil })
	h.tap(rv.decline)
	if err := <-done; !errors.Is(err, app.ErrDeclined) {
		t.Fatalf("send: %v", err)
	}
	h.waitFor("the declined transfer in the tray", func() bool {
		got := ta.labels()
		return len(got) > 3 && strings.HasPrefix(got[2], "✗ report.pdf · 3.00 kB · from Laptop · Today ") &&
			got[3] == "✓ plan.pdf · 2.00 kB · to Maya's phone · Jun 14, 2025"
	})
}
