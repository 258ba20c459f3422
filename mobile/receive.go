package mobile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/transfer"
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
	// AutoAccept takes every offer without OnOffer waiting for an answer
	// (OnOffer is still called, to say what comes).
	AutoAccept bool
	// Overwrite replaces existing files; otherwise a clash is saved as
	// "name (1).ext".
	Overwrite bool
	// SaveText also saves text snippets as files (OnText is called
	// either way).
	SaveText bool
	// Advertise announces the receiver with Ferry's own mDNS
	// (core/discovery). Leave it off on phones, which register
	// Transfer.Advertisement with the platform instead: Android 11+
	// forbids the interface listing it needs, and both platforms
	// want their own service APIs to own mDNS.
	Advertise bool
	// Ifaces names the interfaces to advertise on, comma-separated;
	// empty means every multicast-capable interface.
	Ifaces string
}

// NewReceiveOptions returns empty ReceiveOptions.
func NewReceiveOptions() *ReceiveOptions { return &ReceiveOptions{} }

// Receive starts listening for one transfer. It returns at once with the
// code to show and the port; the transfer then runs on its own, telling
// the app through Events, until it finishes, fails, or is cancelled.
func (n *Node) Receive(opts *ReceiveOptions) (_ *Transfer, err error) {
	defer guard("receiving", &err)
	if opts == nil {
		return nil, errors.New("receiving: no options")
	}
	if opts.Dir == "" {
		return nil, errors.New("receiving: no destination folder")
	}
	ctx, cancel := context.WithCancelCause(n.ctx)
	t := &Transfer{n: n, cancel: cancel}
	if err := n.begin(t); err != nil {
		cancel(nil)
		return nil, fmt.Errorf("receiving: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			cancel(nil)
			n.abandon(t)
		}
	}()

	policy := transfer.Ask
	if opts.AutoAccept {
		policy = transfer.AcceptAll
	}
	listen := opts.Listen
	if listen == "" {
		listen = ":0"
	}
	id := t.id
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{
		Dir:       opts.Dir,
		Code:      opts.Code,
		Listen:    listen,
		Identity:  n.id,
		Name:      n.cfg.Name,
		Policy:    policy,
		Overwrite: opts.Overwrite,
		SaveText:  opts.SaveText,
		Timeout:   time.Duration(n.cfg.TimeoutSeconds) * time.Second,
		Budget:    n.budget, // one for the Node: a new receiver is no new allowance
		OnEvent: func(e transfer.Event) {
			if c, isCode := e.(transfer.CodeChanged); isCode && c.Reason != transfer.CodeUsed {
				t.setCode(c.Code)
			}
			n.emit(func(ev Events) { deliver(ev, id, e) })
		},
	})
	if err != nil {
		return nil, fmt.Errorf("receiving: %w", err)
	}
	t.r = r
	t.code = r.Code()
	if opts.Advertise {
		adv, err := discovery.Advertise(discovery.AdvertiseConfig{
			Name:        n.cfg.Name,
			Fingerprint: n.Fingerprint(),
			Port:        r.Port(),
			Ifaces:      splitList(opts.Ifaces),
		})
		if err != nil {
			_ = r.Close()
			return nil, fmt.Errorf("receiving: %w", err)
		}
		t.adv = adv
	}

	ok = true
	n.run("receiving", func() {
		s, err := r.Serve(ctx)
		t.finish(s, cancelled(ctx, err))
	}, func(err error) { t.finish(transfer.Summary{}, err) })
	return t, nil
}

// cancelled makes sure an error caused by cancelling ctx says so, whatever
// the layer below made of the cancellation (a closed socket, say).
func cancelled(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(err, cause) {
		return err
	}
	if errors.Is(cause, transfer.ErrCancelled) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}
