// Command ferry-gui is Ferry's desktop app. It wires the window, the
// transfer engine and mDNS discovery together; everything a person sees is
// in package gui/ui.
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
//	                      progress-many, send-phone or history
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

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/guessfile"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
	"github.com/ferry-project/ferry/gui/fmactions"
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

	a := app.NewWithID("io.github.ferry-project.ferry")
	a.Settings().SetTheme(ui.Theme())
	a.SetIcon(ui.AppIcon())
	w := a.NewWindow("Ferry")
	// 680 high: the Send view (Send clipboard, per-device codes, Send to
	// a phone) needs 648, and a window smaller than its content grows
	// by itself after the first frame.
	w.Resize(fyne.NewSize(960, 680))

	id, idErr := secure.LoadOrCreateIdentity(configDir)
	if idErr != nil {
		// Still useful without a stored key: this run gets a fresh one,
		// and the person is told why the fingerprint will change.
		var err error
		if id, err = secure.NewIdentity(); err != nil {
			log.Fatalf("ferry-gui: %v", err)
		}
	}

	// The trusted devices live beside the key, in the file the CLI's
	// `ferry trust` uses, so pairing in either counts in both.
	trustPath, trustErr := trust.DefaultPath()
	if configDir != "" {
		// DefaultPath's file name, in the folder given.
		trustPath, trustErr = filepath.Join(configDir, "trusted.json"), nil
	}
	var store *trust.Store
	if trustErr == nil {
		store = trust.Open(trustPath)
	}

	// The history too: `ferry history` lists the app's transfers and the
	// History view the CLI's.
	var hist *history.Store
	if histPath, err := history.DefaultPath(); configDir != "" {
		hist = history.Open(filepath.Join(configDir, "history.json"))
	} else if err == nil {
		hist = history.Open(histPath)
	}

	// The guess budget, one for the app's life and kept beside the trust
	// file: a start at login (--hidden) is no person acting, so it
	// carries on the count; opened by hand, it starts over.
	bcfg := transfer.BudgetConfig{ByPerson: !args.Hidden, Warn: func(err error) { log.Printf("ferry-gui: %v", err) }}
	if gpath, err := guessfile.DefaultPath(); configDir != "" {
		bcfg.Store = guessfile.Open(filepath.Join(configDir, "guesses.json"))
	} else if err == nil {
		bcfg.Store = guessfile.Open(gpath)
	}

	ifaces := splitList(os.Getenv("FERRY_IFACE"))
	cfg := ui.Config{
		App:      a,
		Window:   w,
		Engine:   ui.CoreEngine{},
		Identity: id,
		Trust:    store,
		History:  hist,
		Budget:   transfer.NewBudget(bcfg),
		Listen:   os.Getenv("FERRY_LISTEN"),
		Hosts:    func() []string { return ui.LocalHosts(ifaces) },
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
	if demo == "" && os.Getenv("FERRY_NO_DISCOVERY") == "" {
		cfg.Browse = browse(ifaces)
		cfg.Advertise = advertise(ifaces)
	}
	u := ui.New(cfg)
	if demo != "" {
		if err := u.Demo(demo); err != nil {
			log.Fatalf("ferry-gui: %v", err)
		}
	}
	u.Start()
	if idErr != nil {
		dialog.ShowError(idErr, w)
	} else if trustErr != nil {
		dialog.ShowError(fmt.Errorf("trusted devices are off: %w", trustErr), w)
	}
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
	sock, err := ui.InstanceSocket(configDir)
	if err != nil {
		log.Printf("ferry-gui: %v (a second ferry-gui will open a second window)", err)
		return nil
	}
	l, handed, err := ui.Claim(sock, args)
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

// browse adapts core/discovery to the UI's device list.
func browse(ifaces []string) ui.BrowseFunc {
	return func(ctx context.Context, onChange func([]ui.Device)) error {
		return discovery.Browse(ctx, discovery.BrowseConfig{
			Ifaces: ifaces,
			OnChange: func(peers []discovery.Peer) {
				ds := make([]ui.Device, 0, len(peers))
				for _, p := range peers {
					ds = append(ds, ui.Device{
						Name:         p.Name,
						Fingerprint:  p.Fingerprint,
						Addrs:        p.DialAddrs(),
						Incompatible: p.Version != discovery.ProtocolVersion,
					})
				}
				onChange(ds)
			},
		})
	}
}

func advertise(ifaces []string) ui.AdvertiseFunc {
	return func(name, fp string, port int) (func(), error) {
		a, err := discovery.Advertise(discovery.AdvertiseConfig{Name: name, Fingerprint: fp, Port: port, Ifaces: ifaces})
		if err != nil {
			return nil, err
		}
		return a.Close, nil
	}
}
