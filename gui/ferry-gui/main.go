// Command ferry-gui is Ferry's desktop app. It wires the window, the
// transfer engine and mDNS discovery together; everything a person sees is
// in package gui/ui.
//
// Environment, for tests and unusual networks:
//
//	FERRY_IFACE=lo,eth1   discovery and the QR address use only these interfaces
//	FERRY_NO_DISCOVERY=1  no mDNS at all: devices are added by address
//	FERRY_LISTEN=addr     the receiver's listen address (default ":0")
//	FERRY_CONFIG_DIR=dir  where the device key and the trusted devices are kept
//	                      (default: the user's config dir, shared with the ferry CLI)
//	FERRY_GUI_DEMO=view   open a view filled with sample content and no network:
//	                      send, progress, done, failed, receive, offer, settings,
//	                      trusted, devices-trusted or done-trust
//
// With --hidden (what the login item runs) the window starts closed into
// the system tray when "Keep receiving in the tray" is on, and shows
// otherwise.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/trust"
	"github.com/ferry-project/ferry/gui/ui"
)

func main() {
	a := app.NewWithID("io.github.ferry-project.ferry")
	a.Settings().SetTheme(ui.Theme())
	a.SetIcon(ui.AppIcon())
	w := a.NewWindow("Ferry")
	w.Resize(fyne.NewSize(960, 640))

	configDir := os.Getenv("FERRY_CONFIG_DIR")
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

	ifaces := splitList(os.Getenv("FERRY_IFACE"))
	cfg := ui.Config{
		App:      a,
		Window:   w,
		Engine:   ui.CoreEngine{},
		Identity: id,
		Trust:    store,
		Listen:   os.Getenv("FERRY_LISTEN"),
		Hosts:    func() []string { return ui.LocalHosts(ifaces) },
	}
	if exe, err := os.Executable(); err == nil {
		// Settings' "Start at login": this binary, started in the tray.
		cfg.Autostart = platform.LoginItem{
			ID: a.UniqueID(), Name: "Ferry", Comment: "Receive files from devices on this network",
			Command: []string{exe, "--hidden"},
		}
	}
	demo := os.Getenv("FERRY_GUI_DEMO")
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
	args, hidden := takeFlag(os.Args[1:], "--hidden")
	if len(args) > 0 && strings.HasPrefix(args[0], "ferry://") {
		u.OpenLink(args[0])
	}
	w.SetOnClosed(u.Close)
	if hidden && u.StartHidden() {
		a.Run()
	} else {
		w.ShowAndRun()
	}
	// Quit from the tray, or the window closed without the tray.
	u.Close()
}

// takeFlag removes flag from args and reports whether it was there.
func takeFlag(args []string, flag string) ([]string, bool) {
	var out []string
	found := false
	for _, a := range args {
		if a == flag {
			found = true
			continue
		}
		out = append(out, a)
	}
	return out, found
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
