package ui

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

// Demo fills the window with sample content and no network, for
// screenshots and for trying the interface: view is "send" (a selection, a
// device and a code), "progress" (a send under way), "done" (a verified
// send), "failed" (a send with a wrong code), "receive" (the code and QR
// code), "offer" (an incoming offer), "settings", "trusted" (Settings with
// two trusted devices), "devices-trusted" (a device list with a trusted
// device and one whose key changed), "done-trust" (a verified send with
// the box that trusts the receiver), "receive-many" (three incoming
// cards: asking, receiving, verified) or "send-phone" (Send to a phone,
// waiting for a page: the QR code and the link).
// Call it after New and before Start. Sample files are created, sparse,
// under the system's temporary folder, and so is a trust store of sample
// devices: the person's own is never read or written.
func (u *UI) Demo(view string) error {
	if err := u.demoSetup(view); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	switch view {
	case "send", "progress", "done", "failed", "done-trust", "devices-trusted", "send-phone":
		return u.demoSendView(view)
	case "send-many", "progress-many":
		return u.demoMany(view)
	case "receive", "offer", "codes-stopped":
		u.ShowReceive()
		u.demoReceive(view)
	case "receive-many":
		u.ShowReceive()
		u.demoReceiveMany()
	case "settings", "trusted":
		u.ShowSettings()
	case "history":
		if err := u.demoHistory(); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		u.ShowHistory()
	default:
		return fmt.Errorf("demo: unknown view %q (want send, progress, done, failed, receive, offer, codes-stopped, receive-many, settings, trusted, devices-trusted, done-trust, send-many, progress-many, send-phone or history)", view)
	}
	return nil
}

// demoSetup puts the fixed stand-ins in place: no network, no history,
// a sample name, folder, fingerprint and trust store.
func (u *UI) demoSetup(view string) error {
	// Nothing runs on the network and nothing is recorded: the views
	// are told what a transfer would bring (demoSend, demoReceive).
	u.cfg.NoReceive = true
	u.cfg.Browse, u.cfg.Advertise = nil, false
	u.hist = nil // a demo transfer is not the person's (the history view has its own)
	u.cfg.Hosts = func() []string { return []string{"192.168.1.23"} }
	// Fixed stand-ins for what differs per machine and per run, so that
	// screenshots are the same every time.
	u.settings.nameOverride = "Studio desktop"
	u.settings.dirOverride = filepath.Join(os.TempDir(), "ferry-demo", "Received")
	u.fpOverride = "FH8F-TB4L-E5MV-YYPQ"
	var pins []stores.Device
	switch view {
	case "trusted":
		pins = demoPins
	case "devices-trusted", "done-trust":
		pins = demoPins[1:] // Maya's laptop is not trusted yet
	}
	store, err := demoTrust(pins)
	if err != nil {
		return err
	}
	u.trust = store
	u.settings.load()
	return nil
}

// demoSendView is the Send view with the sample selection: a device
// chosen and a code typed, a send played from there, the device list
// with a trusted device and an impostor, or Send to a phone waiting.
func (u *UI) demoSendView(view string) error {
	paths, err := demoFiles()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	u.ShowSend()
	u.send.addPaths(paths...)
	switch view {
	case "devices-trusted":
		// Pixel 8 is trusted and found under its key; a device that
		// calls itself Pixel 8 with another key is not; the NAS was
		// never paired.
		pixel := demoPins[1]
		u.send.found = u.classify([]Device{
			{Name: pixel.Name, Fingerprint: pixel.Fingerprint(), Addrs: []string{"192.168.1.44:52711"}},
			{Name: pixel.Name, Fingerprint: "R4WM-9KTD-PX3H-7QJC", Addrs: []string{"192.168.1.77:41000"}},
			demoDevices[2],
		})
		u.send.chosen = u.send.found[0].key()
		u.send.devicesChanged()
	case "send-phone":
		u.demoPhone()
	default:
		u.send.found = demoDevices
		u.send.chosen = demoDevices[0].key()
		u.send.devicesChanged()
		u.send.code.SetText("482913")
		if view != "send" {
			u.demoSend(view)
		}
	}
	return nil
}

// demoPhone is Send to a phone waiting for a page, as startPhoneSend
// shows it, with the link as it would read on a LAN, a fixed port and
// code so that the picture is the same every run. Nothing is served.
func (u *UI) demoPhone() {
	v := u.send
	bytes, files, _ := v.sel.totals()
	v.prog.begin(v.prog.transferTitle(files, bytes), "To a phone's browser", func() {})
	v.showProgress(true)
	v.cancel = func(error) {}
	v.phone.show(nearby.PageLink("192.168.1.23", 41002, "482913", u.fingerprint()))
	v.prog.current.SetText("Waiting for the phone to open the page…")
	v.updateReady()
}

// demoPins are the sample trusted devices, with made-up keys that are the
// same every run (so are their fingerprints on screen).
var demoPins = []stores.Device{
	{Name: "Maya's MacBook Air", Key: demoKey("maya"), PairedAt: time.Date(2025, 6, 14, 12, 0, 0, 0, time.UTC)},
	{Name: "Pixel 8", Key: demoKey("pixel"), PairedAt: time.Date(2025, 5, 2, 12, 0, 0, 0, time.UTC)},
}

func demoKey(seed string) []byte {
	k := sha256.Sum256([]byte("ferry demo key " + seed))
	return k[:]
}

// demoTrust makes a fresh trust store under the temporary folder holding
// pins.
func demoTrust(pins []stores.Device) (*stores.Trust, error) {
	dir := filepath.Join(os.TempDir(), "ferry-demo", "config")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	s, err := stores.OpenTrust(dir)
	if err != nil {
		return nil, err
	}
	for _, d := range pins {
		if err := s.Add(d); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var demoDevices = []Device{
	{Name: "Maya's MacBook Air", Fingerprint: "K7QX-M2PA-9RTE-WD4C", Addrs: []string{"192.168.1.31:41000"}},
	{Name: "Pixel 8", Fingerprint: "H3ND-8VWB-XK2F-QM7R", Addrs: []string{"192.168.1.44:52711"}},
	{Name: "Living-room NAS", Fingerprint: "T9FJ-C4LP-ZQ6S-N2YE", Addrs: []string{"192.168.1.5:41000"}},
}

// demoFiles makes the sample selection: sparse files, so a "1.8 GB" video
// costs nothing on disk.
func demoFiles() ([]string, error) {
	root := filepath.Join(os.TempDir(), "ferry-demo")
	files := map[string]int64{
		"Interview – final cut.mov": 1_843_200_000,
		"Quarterly report.pdf":      2_412_544,
		"notes.md":                  12_288,
	}
	for i := 1; i <= 24; i++ {
		files[fmt.Sprintf("Holiday photos/IMG_%04d.jpg", 4100+i)] = int64(3_100_000 + i*97_000)
	}
	for name, size := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		err = f.Truncate(size)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	var paths []string
	for _, n := range []string{"Interview – final cut.mov", "Holiday photos", "Quarterly report.pdf", "notes.md"} {
		paths = append(paths, filepath.Join(root, n))
	}
	return paths, nil
}

// demoSend plays a send to Maya's laptop that stops at a telling
// moment: under way ("progress"), verified ("done", and "done-trust"
// with the box that trusts it, a code having authenticated it), or
// failed with a wrong code ("failed"). No engine runs: the view is told
// the events a real send would bring.
func (u *UI) demoSend(view string) {
	v := u.send
	d := demoDevices[0]
	bytes, files, _ := v.sel.totals()
	v.prog.begin(v.prog.transferTitle(files, bytes), "To "+d.Name, func() {})
	v.showProgress(true)
	if view == "failed" {
		v.sendDone(event.Summary{}, fmt.Errorf("connecting to %s: %w", strings.Join(d.Addrs, ", "), app.ErrWrongCode), pinOffer{})
		return
	}
	c := event.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0]}
	var pin pinOffer
	if view == "done-trust" {
		key := demoPins[0].Key
		c.PeerKey, c.PeerFingerprint = key, stores.Device{Key: key}.Fingerprint()
		pin.step = app.PinStep{Do: app.PinAsk, Peer: stores.Device{Name: d.Name, Key: key}}
	}
	const total = 1_927_000_000
	v.prog.handle(c)
	v.prog.handle(event.Accepted{By: event.ByPeer, TotalBytes: total, Offer: event.Offer{Files: 27, Folders: 1, TotalBytes: total}})
	if view == "progress" {
		v.cancel = func(error) {}
		v.prog.handle(event.Progress{
			Done: 1_195_000_000, Total: total, Rate: 48_700_000, ETA: 15,
			Current: "Interview – final cut.mov", CurrentDone: 1_112_000_000, CurrentSize: 1_843_200_000,
			EntriesDone: 26, Entries: 28,
		})
		v.updateReady()
		return
	}
	sum := event.Summary{Bytes: total, Duration: 39*time.Second + 400*time.Millisecond}
	names := []string{"Interview – final cut.mov", "Quarterly report.pdf", "notes.md"}
	for i := 1; i <= 24; i++ {
		names = append(names, fmt.Sprintf("Holiday photos/IMG_%04d.jpg", 4100+i))
	}
	for _, n := range names {
		sum.Entries = append(sum.Entries, event.EntryDone{Entry: event.Entry{Path: n, Kind: event.KindFile}, Outcome: event.Received})
	}
	v.sendDone(sum, nil, pin)
}

// demoReceive shows the Receive view waiting with a fixed code, and for
// "offer" a Pixel's offer, for "codes-stopped" the budget spent.
func (u *UI) demoReceive(view string) {
	v := u.recv
	v.lis, v.port = 1, 41000 // and the zero config, which asks
	v.showReady(u.settings.deviceName(), "482913", v.port, u.settings.downloadDir(), u.cfg.Hosts(), u.fingerprint())
	v.show(v.ready)
	switch view {
	case "codes-stopped":
		v.handle(v.lis, nil, event.CodesStopped{Wrong: 12})
	case "offer":
		d := demoDevices[1]
		v.handle(v.lis, nil, event.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0]})
		o := event.Offer{PeerName: d.Name, PeerFingerprint: d.Fingerprint}
		for i, n := range []string{"PXL_20250614_181204.jpg", "PXL_20250614_181233.jpg", "PXL_20250614_181301.mp4", "Boarding pass.pdf", "Voice memo 12.m4a"} {
			size := int64(2_800_000 + i*1_450_000)
			if i == 2 {
				size = 148_000_000
			}
			o.Entries = append(o.Entries, event.Entry{Path: n, Kind: event.KindFile, Size: size})
			o.Files++
			o.TotalBytes += size
		}
		v.handle(v.lis, nil, o)
	}
}
