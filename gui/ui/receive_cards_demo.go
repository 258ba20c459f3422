package ui

import (
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// demoReceiveMany is Demo's "receive-many": a receiver of up to three
// senders at once, with a card each: a phone's offer waiting for the
// person, a laptop's transfer under way, and a trusted NAS's verified.
// The cards' transfers are keys only: nothing runs, and their buttons do
// nothing.
func (u *UI) demoReceiveMany() {
	v := u.recv
	v.lis, v.port = 1, 41000 // and the zero config, which asks
	v.many, v.atOnce = true, 3
	v.showReady(u.settings.deviceName(), "482913", v.port, u.settings.downloadDir(), u.cfg.Hosts(), u.fingerprint())
	v.show(v.ready)
	cards := make([]*incomingCard, 3)
	for i, d := range []Device{demoDevices[1], demoDevices[0], demoDevices[2]} {
		t := &app.Transfer{}
		c := v.newCard(t, event.Connected{PeerName: d.Name, PeerFingerprint: d.Fingerprint, Addr: d.Addrs[0], Paired: i == 2, PinnedName: d.Name})
		c.accept.OnTapped, c.decline.OnTapped, c.prog.cancel.OnTapped = func() {}, func() {}, func() {}
		cards[i] = c
	}
	o := event.Offer{PeerName: demoDevices[1].Name, PeerFingerprint: demoDevices[1].Fingerprint}
	for i, n := range []string{"PXL_20250614_181204.jpg", "PXL_20250614_181233.jpg", "PXL_20250614_181301.mp4"} {
		size := int64(2_800_000 + i*1_450_000)
		o.Entries = append(o.Entries, event.Entry{Path: n, Kind: event.KindFile, Size: size})
		o.Files++
		o.TotalBytes += size
	}
	v.cardEvent(cards[0].t, o)

	const total = 1_843_200_000
	laptop := cards[1].t
	v.cardEvent(laptop, event.Accepted{TotalBytes: total, Offer: event.Offer{Files: 1, TotalBytes: total}})
	cards[1].prog.title.SetText(cards[1].prog.transferTitle(1, total))
	v.cardEvent(laptop, event.Progress{Done: 1_104_000_000, Total: total, Rate: 48e6, ETA: 15.4,
		Current: "Interview – final cut.mov", CurrentDone: 1_104_000_000, CurrentSize: total, Entries: 1})

	sum := event.Summary{Bytes: 2_424_832, Duration: 1200 * time.Millisecond}
	for _, n := range []string{"Quarterly report.pdf", "notes.md"} {
		sum.Entries = append(sum.Entries, event.EntryDone{Entry: event.Entry{Path: n, Kind: event.KindFile}, Outcome: event.Received})
	}
	v.cardDone(cards[2], app.Result{Summary: sum}, pinOffer{})
}
