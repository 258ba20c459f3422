package mobile

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app"
)

// ReceiveOptions says where and how to receive. Create it with
// NewReceiveOptions (Kotlin: ReceiveOptions(), Swift:
// MobileReceiveOptions()).
type ReceiveOptions struct {
	// Dir is the destination folder; it must exist and be writable
	// (Android: a folder under filesDir or getExternalFilesDir; iOS: the
	// app's Documents or a temporary folder). Nothing is written outside
	// it. Partial files live in a hidden folder inside it, so that an
	// interrupted transfer can resume.
	Dir string
	// Code fixes the code to show; empty picks a random one (the usual
	// case).
	Code string
	// Listen is the address to listen on; empty means every interface,
	// any port (":0").
	Listen string
	// AutoAccept takes every offer without waiting for an answer (the
	// "offer" event still comes, to say what comes).
	AutoAccept bool
	// AcceptTrusted takes a trusted device's offer (Transfer.Pin)
	// without waiting for an answer; others wait as AutoAccept says.
	AcceptTrusted bool
	// Overwrite replaces existing files; otherwise a clash is saved as
	// "name (1).ext".
	Overwrite bool
	// SaveText also saves text snippets as files (the "text" event
	// comes either way).
	SaveText bool
	// Advertise announces the receiver with Ferry's own mDNS
	// (core/discovery). Leave it off on phones, which register
	// Transfer.Advertisement with the platform instead: Android 11+
	// forbids the interface listing it needs, and both platforms
	// want their own service APIs to own mDNS.
	Advertise bool
	// MaxTransfers is how many senders this receive takes at once: 0
	// means the device's limit (Android 2, iOS 1), more than it is an
	// error. With 1 the receive is one transfer, which ends with it; above
	// 1 it goes on until Cancel, each sender a transfer of its own (see
	// Receive).
	MaxTransfers int
	// Ifaces names the interfaces to advertise on, comma-separated;
	// empty means every multicast-capable interface. An advertisement
	// that fails is a "warning": senders can still use the address.
	Ifaces string
}

// NewReceiveOptions returns empty ReceiveOptions.
func NewReceiveOptions() *ReceiveOptions { return &ReceiveOptions{} }

// Receive starts listening. With one sender at a time (iOS, or
// ReceiveOptions.MaxTransfers 1) it listens for one transfer. It returns at once with the
// code to show and the port; the transfer then runs on its own, telling
// the app through Events, until it ends ("done" or "error"). The wait
// goes on when the device's guess budget is spent ("codes_stopped"): a
// sender with a code is told to wait, until the person asks for a new
// code (Transfer.NewCode). One receive at a time: a device has one
// receiver, with one guess budget (core/app).
//
// With several at once (Android's default, up to its limit of 2) the
// receive goes on until Cancel or Close, taking up to MaxTransfers
// senders at once; one more is refused as busy. The Transfer returned is
// the receiver (ID 0: Code, Port, Advertisement, NewCode, Cancel), its
// own events carry "transfer": 0, and each sender's events carry the ID
// of its own transfer, from "connected" to "done" or "error"; the app
// answers each offer with AcceptTransfer or DeclineTransfer of that ID.
// The receive holds MaxTransfers of the device's slots while it runs.
// Its end is an "error" event with "transfer": 0 (KindCancelled after
// Cancel).
func (n *Node) Receive(opts *ReceiveOptions) (_ *Transfer, err error) {
	defer guard("receiving", &err)
	if opts == nil {
		return nil, errors.New("receiving: no options")
	}
	if opts.Dir == "" {
		return nil, errors.New("receiving: no destination folder")
	}
	max, err := n.maxFor(opts)
	if err != nil {
		return nil, fmt.Errorf("receiving: %w", err)
	}
	if max > 1 {
		t, err := n.receiveMany(opts, max)
		if err != nil {
			return nil, fmt.Errorf("receiving: %w", err)
		}
		return t, nil
	}
	ts, ctx, err := n.begin(false, 1)
	if err != nil {
		return nil, fmt.Errorf("receiving: %w", err)
	}
	t := ts[0]
	cfg := receiveConfig(opts)
	cfg.OnEvent = t.onEvent
	rc, err := n.app.Listen(cfg)
	if err != nil {
		n.abandon(t)
		return nil, fmt.Errorf("receiving: %w", err)
	}
	at, err := rc.Receive(ctx)
	if err != nil {
		rc.Close()
		n.abandon(t)
		return nil, fmt.Errorf("receiving: %w", err)
	}
	t.start(at, rc)
	return t, nil
}

// receiveConfig is core/app's ReceiveConfig for opts, without a handler.
func receiveConfig(opts *ReceiveOptions) app.ReceiveConfig {
	return app.ReceiveConfig{
		Dir: opts.Dir, Code: opts.Code, Listen: opts.Listen, Overwrite: opts.Overwrite, SaveText: opts.SaveText,
		AcceptAll: opts.AutoAccept, AcceptTrusted: opts.AcceptTrusted, Advertise: opts.Advertise,
		Ifaces: splitList(opts.Ifaces), KeepWaiting: true, KeepTexts: true,
	}
}
