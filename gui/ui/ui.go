package ui

import (
	"context"
	"os"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/pick"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/platform"
)

// Config is everything the UI needs from the command that hosts it.
type Config struct {
	App    fyne.App    // preferences and clipboard
	Window fyne.Window // the main window; the UI sets its content
	// Node is this device (core/app): its key, trusted devices, history
	// and its one guess budget, which every receiver the UI starts
	// spends (the app opens it with StartedByPerson unless it was
	// started at login). Its KeepHistory should ask KeepHistory here.
	Node *app.Node

	// Do runs f on the UI goroutine (fyne.Do in the application).
	Do func(f func())

	// Listen is the receiver's listen address (default ":0", every
	// interface, a port the system picks).
	Listen string
	// Browse connects discovery; nil turns it off. Advertise announces
	// the receiver on the network (the Node's advertising).
	Browse    BrowseFunc
	Advertise bool
	// Hosts lists this device's addresses for the QR code, best first
	// (default LocalHosts(nil)).
	Hosts func() []string
	// OpenFolder shows a folder in the file manager (default OpenFolder).
	OpenFolder func(path string) error
	// NoReceive leaves the receiver off until StartReceiving (demo mode).
	NoReceive bool
	// StateFile, when set, is where the UI writes what the Send view
	// holds, as JSON, whenever it changes (openfiles.go): for tests of
	// the real app, which read it instead of pixels (FERRY_GUI_STATE).
	StateFile string

	// Quit ends the app (default App.Quit): the window's close button
	// when the app does not keep receiving in the tray, and the tray's
	// Quit.
	Quit func()
	// TrayIcon is the tray's icon (default: the app's icon).
	TrayIcon fyne.Resource
	// Autostart is the login item that Settings' "Start at login"
	// writes and removes (platform.LoginItem); nil disables the box.
	Autostart Autostart
}

// Autostart is what Settings needs of a login item.
type Autostart interface {
	Enabled() (bool, error)
	Enable() error
	Disable() error
}

// UI is the running desktop interface.
type UI struct {
	cfg Config
	do  func(func())

	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	tabs     *container.AppTabs
	sendTab  *container.TabItem
	recvTab  *container.TabItem
	setTab   *container.TabItem
	histTab  *container.TabItem
	send     *sendView
	recv     *receiveView
	settings *settingsView
	history  *historyView

	fpOverride string          // demo mode
	trust      *stores.Trust   // the Node's (a demo's own in demo mode); nil: pairing is off
	hist       *stores.History // the Node's (a demo's own in demo mode); nil: no history

	tray   trayState   // the system tray (tray.go)
	notice string      // the last files-not-found message (openfiles.go)
	tmp    *pick.Spool // clipboard images to send (clipboard.go)
}

// fingerprint is this device's key fingerprint as shown to people.
func (u *UI) fingerprint() string {
	if u.fpOverride != "" {
		return u.fpOverride
	}
	return u.cfg.Node.Fingerprint()
}

// New builds the interface into cfg.Window and installs the drop handler.
// Call it on the UI goroutine, then Start.
func New(cfg Config) *UI {
	if cfg.Do == nil {
		cfg.Do = fyne.Do
	}
	if cfg.Hosts == nil {
		cfg.Hosts = func() []string { return LocalHosts(nil) }
	}
	if cfg.OpenFolder == nil {
		cfg.OpenFolder = OpenFolder
	}
	if cfg.Listen == "" {
		cfg.Listen = ":0"
	}
	if cfg.Quit == nil {
		cfg.Quit = cfg.App.Quit
	}
	u := &UI{cfg: cfg, do: cfg.Do, tmp: pick.NewSpool("ferry-clipboard-"), trust: cfg.Node.Trust(), hist: cfg.Node.History()}
	u.ctx, u.stop = context.WithCancel(context.Background())

	u.settings = newSettingsView(u)
	u.send = newSendView(u)
	u.recv = newReceiveView(u)
	u.history = newHistoryView(u)
	u.sendTab = container.NewTabItemWithIcon("Send", theme.UploadIcon(), u.send.root)
	u.recvTab = container.NewTabItemWithIcon("Receive", theme.DownloadIcon(), u.recv.root)
	u.setTab = container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), u.settings.root)
	u.histTab = container.NewTabItemWithIcon("History", theme.HistoryIcon(), u.history.root)
	u.tabs = container.NewAppTabs(u.sendTab, u.recvTab, u.histTab, u.setTab)
	u.tabs.OnSelected = func(t *container.TabItem) {
		// The CLI may have changed the trusted devices or the history
		// meanwhile.
		switch t {
		case u.setTab:
			u.settings.loadTrusted()
		case u.histTab:
			u.history.load()
		}
	}

	cfg.Window.SetContent(u.tabs)
	cfg.Window.SetOnDropped(u.Drop)
	cfg.Window.SetCloseIntercept(u.WindowCloseRequested)
	u.addClipboardShortcut()
	return u
}

// Start begins receiving and, when configured, discovering devices.
func (u *UI) Start() {
	u.do(u.setupTray) // with "Keep receiving in the tray" on
	if !u.cfg.NoReceive {
		u.recv.start()
	}
	if u.cfg.Browse != nil {
		u.goroutine(func() { u.send.browse(u.ctx) })
	}
}

// KeepHistory says whether new transfers are recorded ("Record new
// transfers" on the History tab): the Node's Config.KeepHistory. Safe
// from any goroutine (preferences are).
func (u *UI) KeepHistory() bool { return u.history.keeping() }

// Close cancels every transfer and background task and waits for them.
func (u *UI) Close() {
	u.stop()
	u.wg.Wait()
	u.tmp.Close()
}

// Drop adds dropped files and folders to the send selection and shows the
// Send view. It is the window's drop handler, exported so tests can drop.
func (u *UI) Drop(_ fyne.Position, uris []fyne.URI) {
	var paths []string
	for _, uri := range uris {
		if uri != nil && uri.Scheme() == "file" {
			paths = append(paths, uri.Path())
		}
	}
	if len(paths) == 0 {
		return
	}
	u.tabs.Select(u.sendTab)
	u.send.addPaths(paths...)
}

// ShowSend, ShowReceive, ShowSettings and ShowHistory switch views (the demo mode uses
// them).
func (u *UI) ShowSend()     { u.tabs.Select(u.sendTab) }
func (u *UI) ShowReceive()  { u.tabs.Select(u.recvTab) }
func (u *UI) ShowSettings() { u.tabs.Select(u.setTab) }
func (u *UI) ShowHistory()  { u.tabs.Select(u.histTab) }

// goroutine runs f on a goroutine that Close waits for.
func (u *UI) goroutine(f func()) {
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		f()
	}()
}

// defaultDownloads is the download folder the CLI uses too
// (core/platform's DownloadDir: the Downloads known folder on Windows, the
// XDG download folder on Linux, however the desktop's language names it),
// or the working directory when there is no home.
func defaultDownloads() string {
	dir, err := platform.DownloadDir()
	if err != nil {
		return "."
	}
	return dir
}

// defaultName is the host name, which is what people call their machine.
func defaultName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "Ferry device"
	}
	return h
}
