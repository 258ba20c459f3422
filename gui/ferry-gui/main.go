// Command ferry-gui is Ferry's desktop app. It makes this device (core/app's
// Node: its key, trusted devices, history, guess budget, receiver and
// discovery) and the window; everything a person sees is in package gui/ui.
//
// Environment, for tests and unusual networks:
//
//	FERRY_IFACE=lo,eth1   discovery and the QR address use only these interfaces
//	FERRY_NO_DISCOVERY=1  no mDNS at all: devices are added by address
//	FERRY_LISTEN=addr     the receiver's listen address (default ":0")
//	FERRY_CONFIG_DIR=dir  where the device key, the trusted devices and the history
//	                      are kept (default: the user's config dir, shared with the
//	                      ferry CLI)
//	FERRY_GUI_DEMO=view   open a view filled with sample content and no network:
//	                      send, progress, done, failed, receive, offer, settings,
//	                      trusted, devices-trusted, done-trust, send-many,
//	                      progress-many, receive-many, send-phone or history
//	FERRY_GUI_STATE=file  write what the Send view holds to file, as JSON,
//	                      whenever it changes (for tests of the real app)
//
// Arguments (see gui/ui's Args): files and folders to select on the Send
// view, as a file manager passes them (the desktop entry's Exec is
// `ferry-gui -- %F`), or one ferry:// link. When the app is running
// already, a second ferry-gui hands them to it and exits.
// --install-file-manager-actions adds "Send with Ferry" to this person's
// file managers (gui/fmactions); --remove-file-manager-actions removes it.
// With --hidden (what the login item runs) the window starts closed into
// the system tray when "Keep receiving in the tray" is on, and shows
// otherwise.
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/instance"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/gui/fmactions"
	"github.com/ferry-project/ferry/gui/page"
	"github.com/ferry-project/ferry/gui/ui"
)

func main() {
	cwd, _ := os.Getwd()
	args, err := ui.ParseArgs(os.Args[1:], cwd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferry-gui: %v\nusage: ferry-gui [--hidden] [--] [FILE... | ferry://LINK] | --install-file-manager-actions | --remove-file-manager-actions\n", err)
		os.Exit(2)
	}
	if args.InstallActions || args.RemoveActions {
		os.Exit(fileManagerActions(args.InstallActions))
	}
	configDir := os.Getenv("FERRY_CONFIG_DIR")
	demo := os.Getenv("FERRY_GUI_DEMO")
	var instance net.Listener
	if demo == "" {
		instance = claim(configDir, args)
	}

	a := fyneapp.NewWithID("io.github.ferry-project.ferry")
	a.Settings().SetTheme(ui.Theme())
	a.SetIcon(ui.AppIcon())
	w := a.NewWindow("Ferry")
	// 680 high: the Send view (Send clipboard, per-device codes, Send to
	// a phone) needs 648, and a window smaller than its content grows
	// by itself after the first frame.
	w.Resize(fyne.NewSize(960, 680))

	ifaces := splitList(os.Getenv("FERRY_IFACE"))
	var shown atomic.Pointer[ui.UI] // once it is there: "Record new transfers", and warnings
	node, problem := newNode(configDir, demo, ifaces, !args.Hidden, &shown)
	defer node.Close()
	u := ui.New(uiConfig(a, w, node, ifaces, demo == "" && os.Getenv("FERRY_NO_DISCOVERY") == ""))
	shown.Store(u)
	if demo != "" {
		if err := u.Demo(demo); err != nil {
			log.Fatalf("ferry-gui: %v", err)
		}
	}
	u.Start()
	if problem != nil {
		dialog.ShowError(problem, w)
	}
	run(u, w, a, args, instance)
}

// newNode makes this device: its key, trusted devices and history live
// in configDir (the user's config folder, shared with the ferry CLI, when
// empty), so pairing in either counts in both, and `ferry history` lists
// the app's transfers. The guess budget, one for the app's life, is kept
// beside the trust file: a start at login (--hidden) is no person
// acting, so it carries on the count; opened by hand, it starts over. A
// demo keeps everything under the temporary folder and records nothing.
//
// problem is what the person is told at once: a key that cannot be
// loaded (this run then gets a fresh one, kept in a temporary folder
// with its trusted devices and history, and the fingerprint will
// change), or trusted devices that are off.
func newNode(configDir, demo string, ifaces []string, byPerson bool, shown *atomic.Pointer[ui.UI]) (node *app.Node, problem error) {
	var mu sync.Mutex
	cfg := app.Config{
		ConfigDir: configDir, PageFiles: page.Files, Ifaces: ifaces, StartedByPerson: byPerson,
		KeepHistory: func() bool {
			u := shown.Load()
			return u == nil || u.KeepHistory()
		},
		OnWarning: func(err error) {
			log.Printf("ferry-gui: %v", err)
			if u := shown.Load(); u != nil {
				u.Warn(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if problem == nil && strings.HasPrefix(err.Error(), "trusted devices are off") {
				problem = err
			}
		},
	}
	if demo != "" {
		cfg.ConfigDir, cfg.NoHistory = filepath.Join(os.TempDir(), "ferry-demo", "node"), true
	}
	node, err := app.New(cfg)
	if err != nil {
		// Still useful without a stored key.
		keyErr := err
		if cfg.ConfigDir, err = os.MkdirTemp("", "ferry-gui-"); err == nil {
			node, err = app.New(cfg)
		}
		if err != nil {
			log.Fatalf("ferry-gui: %v (%v)", keyErr, err)
		}
		mu.Lock()
		problem = keyErr
		mu.Unlock()
	}
	mu.Lock()
	defer mu.Unlock()
	return node, problem
}

// uiConfig is the UI's configuration for the window w of a and node.
func uiConfig(a fyne.App, w fyne.Window, node *app.Node, ifaces []string, discover bool) ui.Config {
	cfg := ui.Config{
		App:    a,
		Window: w,
		Node:   node,
		Listen: os.Getenv("FERRY_LISTEN"),
		Hosts:  func() []string { return ui.LocalHosts(ifaces) },
		// Tests of the real app read the Send list here.
		StateFile: os.Getenv("FERRY_GUI_STATE"),
	}
	if exe, err := os.Executable(); err == nil {
		// Settings' "Start at login": this binary, started in the tray.
		cfg.Autostart = platform.LoginItem{
			ID: a.UniqueID(), Name: "Ferry", Comment: "Receive files from devices on this network",
			Command: []string{exe, "--hidden"},
		}
	}
	if discover {
		cfg.Browse = browse(node)
		cfg.Advertise = true
	}
	return cfg
}

// run opens the files or link it was given and runs the app until it
// quits: with the window shown, or hidden in the tray (--hidden).
func run(u *ui.UI, w fyne.Window, a fyne.App, args ui.Args, instance net.Listener) {
	if instance != nil {
		u.ServeInstance(instance)
	}
	if args.Link != "" {
		u.OpenLink(args.Link)
	}
	if len(args.Files) > 0 {
		u.OpenFiles(args.Files)
	}
	w.SetOnClosed(u.Close)
	if args.Hidden && u.StartHidden() {
		a.Run()
	} else {
		w.ShowAndRun()
	}
	// Quit from the tray, or the window closed without the tray.
	u.Close()
}

// claim makes this process the app, or hands args to the one running and
// exits. Without a socket the app still runs, as a second window.
func claim(configDir string, args ui.Args) net.Listener {
	sock, err := instance.Socket(configDir)
	if err != nil {
		log.Printf("ferry-gui: %v (a second ferry-gui will open a second window)", err)
		return nil
	}
	l, handed, err := instance.Claim(sock, instance.Handoff{Files: args.Files, Link: args.Link})
	if handed {
		os.Exit(0)
	}
	if err != nil {
		log.Printf("ferry-gui: %v (a second ferry-gui will open a second window)", err)
	}
	return l
}

// fileManagerActions installs or removes "Send with Ferry" for this
// person and returns the exit code.
func fileManagerActions(install bool) int {
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferry-gui: finding the home folder: %v\n", err)
		return 1
	}
	do, verb := fmactions.Remove, "removed"
	if install {
		do, verb = fmactions.Install, "wrote"
	}
	paths, err := do(home)
	for _, p := range paths {
		fmt.Printf("ferry-gui: %s %s\n", verb, p)
	}
	if install && err == nil {
		fmt.Println("ferry-gui: \"Send with Ferry\" is in the Scripts menu of GNOME Files and Caja, and in the menus of Nemo and Dolphin (restart a file manager that was open)")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferry-gui: %v\n", err)
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, f)
	}
	return out
}

// browse adapts the Node's discovery to the UI's device list.
func browse(node *app.Node) ui.BrowseFunc {
	return func(ctx context.Context, onChange func([]ui.Device)) error {
		return node.Browse(ctx, func(peers []nearby.Peer) {
			ds := make([]ui.Device, 0, len(peers))
			for _, p := range peers {
				ds = append(ds, ui.Device{
					Name:         p.Name,
					Fingerprint:  p.Fingerprint,
					Addrs:        p.DialAddrs(),
					Incompatible: !p.Compatible(),
				})
			}
			onChange(ds)
		})
	}
}
