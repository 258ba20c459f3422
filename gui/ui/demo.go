package ui

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
	"github.com/ferry-project/ferry/core/web"
)

// Demo fills the window with sample content and no network, for
// screenshots and for trying the interface: view is "send" (a selection, a
// device and a code), "progress" (a send under way), "done" (a verified
// send), "failed" (a send with a wrong code), "receive" (the code and QR
// code), "offer" (an incoming offer), "settings", "trusted" (Settings with
// two trusted devices), "devices-trusted" (a device list with a trusted
// device and one whose key changed), "done-trust" (a verified send with
// the box that trusts the receiver) or "send-phone" (Send to a phone,
// waiting for a page: the QR code and the link).
// Call it after New and before Start. Sample files are created, sparse,
// under the system's temporary folder, and so is a trust store of sample
// devices: the person's own is never read or written.
func (u *UI) Demo(view string) error {
	u.cfg.Engine = demoEngine{view: view}
	u.cfg.Browse, u.cfg.Advertise = nil, nil
	u.cfg.History = nil // a demo transfer is not the person's (the history view has its own)
	u.cfg.Hosts = func() []string { return []string{"192.168.1.23"} }
	// Fixed stand-ins for what differs per machine and per run, so that
	// screenshots are the same every time.
	u.settings.nameOverride = "Studio desktop"
	u.settings.dirOverride = filepath.Join(os.TempDir(), "ferry-demo", "Received")
	u.fpOverride = "FH8F-TB4L-E5MV-YYPQ"
	var pins []trust.Device
	switch view {
	case "trusted":
		pins = demoPins
	case "devices-trusted", "done-trust":
		pins = demoPins[1:] // Maya's laptop is not trusted yet
	}
	store, err := demoTrust(pins)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	u.cfg.Trust = store
	u.settings.load()
	switch view {
	case "devices-trusted":
		paths, err := demoFiles()
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		u.cfg.NoReceive = true
		u.ShowSend()
		u.send.addPaths(paths...)
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
	case "send", "progress", "done", "failed", "done-trust":
		paths, err := demoFiles()
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		u.cfg.NoReceive = true
		u.ShowSend()
		u.send.addPaths(paths...)
		u.send.found = demoDevices
		u.send.chosen = demoDevices[0].key()
		u.send.devicesChanged()
		u.send.code.SetText("482913")
		if view == "done-trust" {
			// A first transfer to Maya's laptop, which a code
			// authenticated.
			u.cfg.Engine = demoEngine{view: view, key: demoPins[0].Key}
		}
		if view != "send" {
			u.send.startSend()
		}
	case "send-many", "progress-many":
		return u.demoMany(view)
	case "send-phone":
		paths, err := demoFiles()
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		u.cfg.NoReceive = true
		u.ShowSend()
		u.send.addPaths(paths...)
		u.send.startPhoneSend() // serves the page on loopback (the capture's FERRY_LISTEN); the demo engine waits
		// The link as it would read on a LAN, with a fixed port and code
		// so that the picture is the same every run.
		u.send.phone.show(web.Link("192.168.1.23", 41002, "482913", u.fingerprint()))
	case "receive", "offer", "codes-stopped":
		u.ShowReceive()
	case "settings", "trusted":
		u.cfg.NoReceive = true
		u.ShowSettings()
	case "history":
		if err := u.demoHistory(); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		u.cfg.NoReceive = true
		u.ShowHistory()
	default:
		return fmt.Errorf("demo: unknown view %q (want send, progress, done, failed, receive, offer, codes-stopped, settings, trusted, devices-trusted, done-trust, send-many, progress-many, send-phone or history)", view)
	}
	return nil
}

// demoPins are the sample trusted devices, with made-up keys that are the
// same every run (so are their fingerprints on screen).
var demoPins = []trust.Device{
	{Name: "Maya's MacBook Air", Key: demoKey("maya"), PairedAt: time.Date(2025, 6, 14, 12, 0, 0, 0, time.UTC)},
	{Name: "Pixel 8", Key: demoKey("pixel"), PairedAt: time.Date(2025, 5, 2, 12, 0, 0, 0, time.UTC)},
}

func demoKey(seed string) []byte {
	k := sha256.Sum256([]byte("ferry demo key " + seed))
	return k[:]
}

// demoTrust makes a fresh trust store under the temporary folder holding
// pins.
func demoTrust(pins []trust.Device) (*trust.Store, error) {
	dir := filepath.Join(os.TempDir(), "ferry-demo", "config")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	s := trust.Open(filepath.Join(dir, "trusted.json"))
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

// demoEngine plays a transfer that stops at a telling moment. key is the
// receiver's static key, when the result should offer to trust it.
type demoEngine struct {
	view string
	key  []byte
}

func (e demoEngine) Send(ctx context.Context, cfg transfer.SendConfig) (transfer.Summary, error) {
	emit := func(ev transfer.Event) {
		if cfg.OnEvent != nil {
			cfg.OnEvent(ev)
		}
	}
	if e.view == "failed" {
		return transfer.Summary{}, fmt.Errorf("connecting to %s: %w", strings.Join(cfg.Addrs, ", "), secure.ErrWrongCode)
	}
	if e.view == "send-phone" {
		<-ctx.Done() // no page comes: the panel waits
		return transfer.Summary{}, fmt.Errorf("%w: %w", transfer.ErrCancelled, context.Cause(ctx))
	}
	d := demoDevices[0]
	c := transfer.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0]}
	if e.key != nil {
		c.PeerKey, c.PeerFingerprint = e.key, secure.Fingerprint(e.key)
	}
	emit(c)
	const total = 1_927_000_000
	emit(transfer.Accepted{Total: total, Offer: transfer.Offer{Files: 27, Dirs: 1, TotalBytes: total}})
	if e.view == "done" || e.view == "done-trust" {
		sum := transfer.Summary{Bytes: total, Duration: 39*time.Second + 400*time.Millisecond}
		for _, n := range []string{"Interview – final cut.mov", "Quarterly report.pdf", "notes.md"} {
			sum.Entries = append(sum.Entries, transfer.EntryDone{Entry: transfer.Entry{Path: n, Kind: transfer.KindFile}, Outcome: transfer.Received})
		}
		for i := 1; i <= 24; i++ {
			n := fmt.Sprintf("Holiday photos/IMG_%04d.jpg", 4100+i)
			sum.Entries = append(sum.Entries, transfer.EntryDone{Entry: transfer.Entry{Path: n, Kind: transfer.KindFile}, Outcome: transfer.Received})
		}
		return sum, nil
	}
	emit(transfer.Progress{
		Done: 1_195_000_000, Total: total, Rate: 48_700_000, ETA: 15 * time.Second,
		Current: "Interview – final cut.mov", CurrentDone: 1_112_000_000, CurrentSize: 1_843_200_000,
		EntriesDone: 26, Entries: 28,
	})
	<-ctx.Done()
	return transfer.Summary{}, fmt.Errorf("%w: %w", transfer.ErrCancelled, context.Cause(ctx))
}

func (e demoEngine) NewReceiver(cfg transfer.ReceiverConfig) (Receiver, error) {
	return &demoReceiver{view: e.view, cfg: cfg}, nil
}

type demoReceiver struct {
	view string
	cfg  transfer.ReceiverConfig
}

func (r *demoReceiver) Code() string { return "482913" }
func (r *demoReceiver) Port() int    { return 41000 }
func (r *demoReceiver) Accept()      {}
func (r *demoReceiver) Decline()     {}
func (r *demoReceiver) Close() error { return nil }
func (r *demoReceiver) NewCode() string {
	r.cfg.OnEvent(transfer.CodeChanged{Code: "730518", Reason: transfer.CodeRenewed})
	return "730518"
}

func (r *demoReceiver) Serve(ctx context.Context) (transfer.Summary, error) {
	if r.view == "codes-stopped" && r.cfg.OnEvent != nil {
		r.cfg.OnEvent(transfer.CodesStopped{Wrong: 12})
	}
	if r.view == "offer" && r.cfg.OnEvent != nil {
		d := demoDevices[1]
		r.cfg.OnEvent(transfer.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0]})
		o := transfer.Offer{PeerName: d.Name, PeerFingerprint: d.Fingerprint}
		for i, n := range []string{"PXL_20250614_181204.jpg", "PXL_20250614_181233.jpg", "PXL_20250614_181301.mp4", "Boarding pass.pdf", "Voice memo 12.m4a"} {
			size := int64(2_800_000 + i*1_450_000)
			if i == 2 {
				size = 148_000_000
			}
			o.Entries = append(o.Entries, transfer.Entry{Path: n, Kind: transfer.KindFile, Size: size})
			o.Files++
			o.TotalBytes += size
		}
		r.cfg.OnEvent(transfer.Offered{Offer: o})
	}
	<-ctx.Done()
	return transfer.Summary{}, context.Cause(ctx)
}
