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
	// Ifaces names the interfaces to advertise on, comma-separated;
	// empty means every multicast-capable interface. An advertisement
	// that fails is a "warning": senders can still use the address.
	Ifaces string
}

// NewReceiveOptions returns empty ReceiveOptions.
func NewReceiveOptions() *ReceiveOptions { return &ReceiveOptions{} }

// Receive starts listening for one transfer. It returns at once with the
// code to show and the port; the transfer then runs on its own, telling
// the app through Events, until it ends ("done" or "error"). The wait
// goes on when the device's guess budget is spent ("codes_stopped"): a
// sender with a code is told to wait, until the person asks for a new
// code (Transfer.NewCode). One receive at a time: a device has one
// receiver, with one guess budget (core/app).
func (n *Node) Receive(opts *ReceiveOptions) (_ *Transfer, err error) {
	defer guard("receiving", &err)
	if opts == nil {
		return nil, errors.New("receiving: no options")
	}
	if opts.Dir == "" {
		return nil, errors.New("receiving: no destination folder")
	}
	ts, ctx, err := n.begin(false, 1)
	if err != nil {
		return nil, fmt.Errorf("receiving: %w", err)
	}
	t := ts[0]
	rc, err := n.app.Listen(app.ReceiveConfig{
		Dir: opts.Dir, Code: opts.Code, Listen: opts.Listen, Overwrite: opts.Overwrite, SaveText: opts.SaveText,
		AcceptAll: opts.AutoAccept, AcceptTrusted: opts.AcceptTrusted, Advertise: opts.Advertise,
		Ifaces: splitList(opts.Ifaces), KeepWaiting: true, KeepTexts: true, OnEvent: t.onEvent,
	})
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
