// Command ferry-gui is Ferry's desktop app. It wires the window, the
// transfer engine and mDNS discovery together; everything a person sees is
// in package gui/ui.
//
// Environment, for tests and unusual networks:
//
//	FERRY_IFACE=lo,eth1   discovery and the QR address use only these interfaces
//	FERRY_NO_DISCOVERY=1  no mDNS at all: devices are added by address
//	FERRY_LISTEN=addr     the receiver's listen address (default ":0")
//	FERRY_CONFIG_DIR=dir  where the device key is kept (default: the user's config dir)
//	FERRY_GUI_DEMO=view   open a view filled with sample content and no network:
//	                      send, progress, done, failed, receive, offer or settings
package main

import (
	"context"
	"log"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/dialog"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/gui/ui"
)

func main() {
	a := app.NewWithID("io.github.ferry-project.ferry")
	a.Settings().SetTheme(ui.Theme())
	w := a.NewWindow("Ferry")
	w.Resize(fyne.NewSize(960, 640))

	id, idErr := secure.LoadOrCreateIdentity(os.Getenv("FERRY_CONFIG_DIR"))
	if idErr != nil {
		// Still useful without a stored key: this run gets a fresh one,
		// and the person is told why the fingerprint will change.
		var err error
		if id, err = secure.NewIdentity(); err != nil {
			log.Fatalf("ferry-gui: %v", err)
		}
	}

	ifaces := splitList(os.Getenv("FERRY_IFACE"))
	cfg := ui.Config{
		App:      a,
		Window:   w,
		Engine:   ui.CoreEngine{},
		Identity: id,
		Listen:   os.Getenv("FERRY_LISTEN"),
		Hosts:    func() []string { return ui.LocalHosts(ifaces) },
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
	}
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "ferry://") {
		u.OpenLink(os.Args[1])
	}
	w.SetOnClosed(u.Close)
	w.ShowAndRun()
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
