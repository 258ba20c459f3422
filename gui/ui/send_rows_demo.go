package ui

import (
	"fmt"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// demoMany is Demo's "send-many" (three devices ticked, a code field for
// each that needs one) and "progress-many" (a row per device: two
// under way at their own speeds, one that declined).
func (u *UI) demoMany(view string) error {
	paths, err := demoFiles()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
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
		u.demoSendMany()
	}
	return nil
}

// demoSendMany plays the demo's send to several devices and stops
// there: two under way at their own speeds, one that declined.
func (u *UI) demoSendMany() {
	v := u.send
	ts := v.targets()
	names := make([]string, len(ts))
	for i, d := range ts {
		names[i] = d.Name
	}
	bytes, files, _ := v.sel.totals()
	v.many.panel.begin(plural(files, "file", "files")+", "+formatBytes(bytes)+" to "+plural(len(ts), "device", "devices"), names, func() {})
	v.form.Hide()
	v.many.card.Show()
	v.cancel = func(error) {}
	v.updateReady()
	const total = 1_927_000_000
	for i := range ts {
		d := demoDevices[i%len(demoDevices)]
		v.many.panel.handle(i, event.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0]})
		if i == 1 {
			v.many.panel.ended(i, event.Summary{}, app.ErrDeclined)
			continue
		}
		v.many.panel.handle(i, event.Accepted{TotalBytes: total, Offer: event.Offer{Files: 27, Folders: 1, TotalBytes: total}})
		done := []int64{1_104_000_000, 0, 655_000_000}[i%3]
		v.many.panel.handle(i, event.Progress{Done: done, Total: total, Rate: []float64{48e6, 0, 29e6}[i%3]})
	}
}
