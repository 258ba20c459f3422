package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// prefTray keeps the app receiving in the system tray when its window is
// closed. Off by default: a window that does not quit when closed
// surprises whoever did not ask for it.
const prefTray = "keepReceivingInTray"

// trayRecent is how many transfers the tray menu lists.
const trayRecent = 5

// trayState is the UI's part in the system tray: whether the window is
// hidden there, and this run's transfers for its menu. Touched only on
// the UI goroutine.
type trayState struct {
	on     bool // the tray icon and menu are installed
	hidden bool // the window was closed into the tray
	recent []transferNote
	menu   *fyne.Menu // the tray's one menu
}

// transferNote is one finished transfer as the tray lists it.
type transferNote struct {
	sent bool
	peer string
	what string
	err  error
	at   time.Time
}

func (n transferNote) label() string {
	verb := "from"
	if n.sent {
		verb = "to"
	}
	status := "✓"
	if n.err != nil {
		status = "✗"
	}
	return fmt.Sprintf("%s %s %s %s · %s", status, n.what, verb, n.peer, n.at.Format("15:04"))
}

// desktopApp is the app's tray, when its driver has one (the desktop
// app's; the test app and mobile have none).
func (u *UI) desktopApp() (desktop.App, bool) {
	d, ok := u.cfg.App.(desktop.App)
	return d, ok
}

// keepInTray says whether closing the window hides it in the tray: the
// setting is on and this app has a tray.
func (u *UI) keepInTray() bool {
	_, ok := u.desktopApp()
	return ok && u.cfg.App.Preferences().BoolWithFallback(prefTray, false)
}

// WindowCloseRequested is the window's close intercept: the window hides
// in the tray, the receiver going on, when the setting is on; otherwise
// the app quits. A result on the Receive view is left behind: the
// receiver listens again at once, as nobody is there to press "Receive
// more".
func (u *UI) WindowCloseRequested() {
	if !u.keepInTray() {
		u.cfg.Quit()
		return
	}
	u.setupTray()
	u.tray.hidden = true
	u.cfg.Window.Hide()
	u.recv.resumeIfIdle()
}

// ShowWindow shows the window again (the tray's "Open Ferry", an offer
// that needs a person) on the Receive view.
func (u *UI) ShowWindow() {
	u.tray.hidden = false
	u.cfg.Window.Show()
	u.cfg.Window.RequestFocus()
}

// WindowHidden says whether the window is closed into the tray.
func (u *UI) WindowHidden() bool { return u.tray.hidden }

// StartHidden is the app started at login (ferry-gui --hidden): with the
// tray on, the window stays hidden and the receiver waits; without it
// the window shows, as the app could not be reached otherwise. It
// reports whether the window is to stay hidden.
func (u *UI) StartHidden() bool {
	if !u.keepInTray() {
		return false
	}
	u.setupTray()
	u.tray.hidden = true
	return true
}

// setupTray installs the tray icon and menu once the setting is on. Fyne
// cannot take a tray icon away again: turning the setting off changes
// what closing the window does at once, and the icon goes with the next
// start.
func (u *UI) setupTray() {
	d, ok := u.desktopApp()
	if !ok || u.tray.on || !u.cfg.App.Preferences().BoolWithFallback(prefTray, false) {
		return
	}
	u.tray.on = true
	if u.cfg.TrayIcon != nil {
		d.SetSystemTrayIcon(u.cfg.TrayIcon)
	}
	u.refreshTray()
}

// refreshTray rebuilds the tray menu from the receiver's state and the
// transfers of this run.
func (u *UI) refreshTray() {
	d, ok := u.desktopApp()
	if !ok || !u.tray.on {
		return
	}
	// One menu, its items replaced: the driver's tray host may come up
	// after later calls and then shows the menu it was first given.
	m := u.trayMenu()
	if u.tray.menu == nil {
		u.tray.menu = m
	}
	u.tray.menu.Items = m.Items
	d.SetSystemTrayMenu(u.tray.menu)
}

// trayMenu is the tray's menu: the code, the last transfers, Open Ferry
// and Quit. Lines that only inform are disabled items, which every tray
// shows greyed and nobody can click.
func (u *UI) trayMenu() *fyne.Menu {
	info := func(s string) *fyne.MenuItem {
		it := fyne.NewMenuItem(s, nil)
		it.Disabled = true
		return it
	}
	items := []*fyne.MenuItem{info(u.recv.trayStatus())}
	items = append(items, fyne.NewMenuItemSeparator())
	recent := u.trayRecentLabels()
	if len(recent) == 0 {
		items = append(items, info("No transfers yet"))
	}
	for _, l := range recent {
		items = append(items, info(l))
	}
	open := fyne.NewMenuItem("Open Ferry", func() {
		u.ShowWindow()
		u.ShowReceive()
	})
	quit := fyne.NewMenuItem("Quit", func() { u.cfg.Quit() })
	quit.IsQuit = true
	items = append(items, fyne.NewMenuItemSeparator(), open, quit)
	return fyne.NewMenu("Ferry", items...)
}

// trayRecentLabels are the last transfers, newest first: from the
// history (the Node's, so the CLI's and earlier runs' count too)
// when it is kept and readable, else this run's.
func (u *UI) trayRecentLabels() []string {
	var out []string
	if s := u.hist; s != nil && u.history.keeping() {
		if recs, _, err := s.List(); err == nil {
			now := time.Now()
			for i, r := range recs {
				if i == trayRecent {
					break
				}
				out = append(out, historyTrayLabel(r, now))
			}
			return out
		}
	}
	for i := len(u.tray.recent) - 1; i >= 0; i-- {
		out = append(out, u.tray.recent[i].label())
	}
	return out
}

// historyTrayLabel is one history record in the tray menu:
// "✓ notes.txt · 35 B · from desk (trusted) · Today 14:02".
func historyTrayLabel(r event.History, now time.Time) string {
	mark := "✓"
	if r.Outcome != stores.HistoryVerified {
		mark = "✗"
	}
	who := historyWho(r)
	who = strings.ToLower(who[:1]) + who[1:]
	return fmt.Sprintf("%s %s · %s · %s", mark, strings.ReplaceAll(historyWhat(r), "  ·  ", " · "), who, historyWhen(r.Time(), now))
}

// noteTransfer adds a finished transfer to the tray's list.
func (u *UI) noteTransfer(sent bool, conn event.Connected, sum event.Summary, err error) {
	peer := conn.PeerName
	if peer == "" {
		peer = "a device"
	}
	n := transferNote{sent: sent, peer: peer, what: summaryWhat(sum), err: err, at: time.Now()}
	u.tray.recent = append(u.tray.recent, n)
	if len(u.tray.recent) > trayRecent {
		u.tray.recent = u.tray.recent[len(u.tray.recent)-trayRecent:]
	}
	u.refreshTray()
}

// summaryWhat names what a transfer moved: the file's name when there is
// one, else a count.
func summaryWhat(sum event.Summary) string {
	var names []string
	for _, e := range sum.Entries {
		if e.Entry.Kind == event.KindDir {
			continue
		}
		names = append(names, e.Entry.Path)
	}
	switch len(names) {
	case 0:
		if len(sum.Entries) == 0 {
			return "nothing"
		}
		return plural(len(sum.Entries), "folder", "folders")
	case 1:
		if i := strings.LastIndexByte(names[0], '/'); i >= 0 {
			return names[0][i+1:]
		}
		return names[0]
	}
	return fmt.Sprintf("%s (%s)", plural(len(names), "file", "files"), formatBytes(sum.Bytes))
}

// notify sends a desktop notification.
func (u *UI) notify(title, body string) {
	u.cfg.App.SendNotification(fyne.NewNotification(title, body))
}

// trayStatus is the receiver's line in the tray menu.
func (v *receiveView) trayStatus() string {
	if v.many {
		return v.manyStatus()
	}
	switch {
	case v.busy && v.prog.conn.PeerName != "":
		return "Receiving from " + v.prog.conn.PeerName
	case v.busy:
		return "Receiving"
	case v.waiting() && v.code != "":
		return "Code " + v.code
	}
	return "Not receiving"
}

// resumeIfIdle listens again when the Receive view shows a result: the
// window has gone to the tray, where nobody can press "Receive more".
func (v *receiveView) resumeIfIdle() {
	if !v.busy {
		v.listenAgain()
	}
}

// backgroundSettings are the Settings rows for living in the tray and
// starting at login. Start at login is not a preference: it is whether
// the login item exists, read when Settings loads and written on Save.
type backgroundSettings struct {
	tray      *widget.Check
	autostart *widget.Check
	status    *widget.Label
}

func newBackgroundSettings(u *UI) *backgroundSettings {
	b := &backgroundSettings{
		tray:      widget.NewCheck("Keep receiving in the tray when the window is closed", nil),
		autostart: widget.NewCheck("Start at login", nil),
		status:    &widget.Label{Wrapping: fyne.TextWrapWord, Importance: widget.DangerImportance},
	}
	if _, ok := u.desktopApp(); !ok {
		b.tray.Disable()
	}
	if u.cfg.Autostart == nil {
		b.autostart.Disable()
	}
	b.status.Hide()
	return b
}

func (b *backgroundSettings) item() *widget.FormItem {
	return &widget.FormItem{Text: "In the background", Widget: container.NewVBox(b.tray, b.autostart, b.status),
		HintText: "At login it starts with the window closed if it keeps receiving in the tray"}
}

func (b *backgroundSettings) load(u *UI) {
	b.tray.SetChecked(u.cfg.App.Preferences().BoolWithFallback(prefTray, false))
	b.status.Hide()
	if u.cfg.Autostart == nil {
		return
	}
	on, err := u.cfg.Autostart.Enabled()
	b.autostart.SetChecked(on)
	if err != nil {
		b.say("Can't tell whether Ferry starts at login: " + err.Error())
	}
}

// save stores the tray setting and creates or removes the login item.
func (b *backgroundSettings) save(u *UI) {
	u.cfg.App.Preferences().SetBool(prefTray, b.tray.Checked)
	u.setupTray()
	b.status.Hide()
	if u.cfg.Autostart == nil {
		return
	}
	on, _ := u.cfg.Autostart.Enabled()
	if on == b.autostart.Checked {
		return
	}
	var err error
	if b.autostart.Checked {
		err = u.cfg.Autostart.Enable()
	} else {
		err = u.cfg.Autostart.Disable()
	}
	if err != nil {
		b.say("Couldn't change starting at login: " + err.Error())
	}
}

func (b *backgroundSettings) say(s string) {
	b.status.SetText(s)
	b.status.Show()
}
