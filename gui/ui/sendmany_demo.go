package ui

import (
	"context"
	"fmt"

	"github.com/ferry-project/ferry/core/transfer"
)

// demoMany is Demo's "send-many" (three devices ticked, a code field for
// each that needs one) and "progress-many" (a row per device: two
// under way at their own speeds, one that declined).
func (u *UI) demoMany(view string) error {
	paths, err := demoFiles()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	u.cfg.NoReceive = true
	u.ShowSend()
	u.send.addPaths(paths...)
	u.send.found = demoDevices
	u.send.chosen = demoDevices[0].key()
	u.send.many.picked[demoDevices[1].key()] = true
	u.send.many.picked[demoDevices[2].key()] = true
	u.send.devicesChanged()
	codes := []string{"482913", "771204", "305118"}
	for i, d := range demoDevices {
		if e := u.send.many.codes[d.key()]; e != nil {
			e.SetText(codes[i])
		}
	}
	if view == "progress-many" {
		u.send.startSend()
	}
	return nil
}

// SendMany plays the demo's send to several devices and stops there.
func (e demoEngine) SendMany(ctx context.Context, cfg transfer.ManyConfig) ([]transfer.ManyResult, transfer.ManyStats) {
	const total = 1_927_000_000
	for i := range cfg.To {
		d := demoDevices[i%len(demoDevices)]
		cfg.OnEvent(i, transfer.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0]})
		if i == 1 {
			cfg.OnEvent(i, transfer.Failed{Err: transfer.ErrDeclined})
			continue
		}
		cfg.OnEvent(i, transfer.Accepted{Total: total, Offer: transfer.Offer{Files: 27, Dirs: 1, TotalBytes: total}})
		done := []int64{1_104_000_000, 0, 655_000_000}[i%3]
		cfg.OnEvent(i, transfer.Progress{Done: done, Total: total, Rate: []float64{48e6, 0, 29e6}[i%3]})
	}
	<-ctx.Done()
	res := make([]transfer.ManyResult, len(cfg.To))
	for i := range res {
		res[i].Err = context.Cause(ctx)
	}
	return res, transfer.ManyStats{}
}
