package mobile

// This file holds the one receive path: core/app's ReceiveMany, with a
// limit of one sender or several. With several, each sender's session
// is a transfer of its own, named in events by its ID and answered by
// that ID.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
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
	t, err := n.reserve(max)
	if err != nil {
		return nil, fmt.Errorf("receiving: %w", err)
	}
	cfg := receiveConfig(opts)
	cfg.MaxConcurrent, cfg.OnEvent = max, t.onReceived
	rc, err := n.app.Listen(cfg)
	if err != nil {
		n.abandon(t)
		return nil, fmt.Errorf("receiving: %w", err)
	}
	t.mu.Lock()
	t.rc = rc
	t.mu.Unlock()
	n.run("receiving", func() { t.receive(rc) }, func(err error) { n.tell(t.ID(), failureOf(err)) })
	return t, nil
}

// receiveConfig is core/app's ReceiveConfig for opts, without a handler.
func receiveConfig(opts *ReceiveOptions) app.ReceiveConfig {
	return app.ReceiveConfig{
		Dir: opts.Dir, Code: opts.Code, Listen: opts.Listen, Overwrite: opts.Overwrite, SaveText: opts.SaveText,
		AcceptAll: opts.AutoAccept, AcceptTrusted: opts.AcceptTrusted, Advertise: opts.Advertise,
		Ifaces: nearby.SplitList(opts.Ifaces), KeepWaiting: true, KeepTexts: true,
	}
}

// sessions is what a receive keeps of each sender's transfer in
// progress. With one sender at a time the receive is that sender's
// transfer (one): it has its ID from the start, and what its sender
// does is the receive's own. With several, each sender's transfer gets
// an ID of its own at its first event.
type sessions struct {
	one    bool
	mu     sync.Mutex
	byAt   map[*app.Transfer]*session
	byID   map[int64]*session
	closed bool // ReceiveMany returned: no session is left
}

// session is one sender's transfer in a receive of several.
type session struct {
	id    int64
	at    *app.Transfer
	offer *event.Offer
}

// maxFor is how many senders a receive takes at once: opts.MaxTransfers
// within the profile's limit, the profile's limit when 0.
func (n *Node) maxFor(opts *ReceiveOptions) (int, error) {
	switch max := n.profile.MaxTransfers; {
	case opts.MaxTransfers < 0 || opts.MaxTransfers > max:
		return 0, fmt.Errorf("a receive takes 1 to %d senders at once on this device, not %d", max, opts.MaxTransfers)
	case opts.MaxTransfers == 0:
		return max, nil
	}
	return opts.MaxTransfers, nil
}

// reserve takes slots of the profile's limit for a receive of that many
// senders at once, and the goroutine that runs it (see run). A receive
// of one is a transfer, numbered now; one of several is numbered 0.
func (n *Node) reserve(slots int) (*Transfer, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, errClosed
	}
	if err := n.canTake(slots); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(n.ctx)
	rx := &sessions{one: slots == 1, byAt: map[*app.Transfer]*session{}, byID: map[int64]*session{}}
	t := &Transfer{n: n, cancel: cancel, rx: rx, ctx: ctx}
	if rx.one {
		t.id = n.lastID.Add(1)
	}
	n.transfers[t] = slots
	n.wg.Add(1)
	return t, nil
}

// receive runs core/app's ReceiveMany until the receive ends: Cancel or
// Close, a failed port, or, with one sender, that sender's transfer's
// end. Then the receiver closes and the slots are free, and only then
// is the last event passed on, so that an app may start the next
// transfer as soon as it hears.
func (t *Transfer) receive(rc *app.Receiver) {
	err := rc.ReceiveMany(t.ctx)
	rc.Close()
	t.rx.mu.Lock()
	t.rx.closed = true
	t.rx.mu.Unlock()
	cause := context.Cause(t.ctx)
	t.cancel(nil)
	if !t.rx.one {
		t.n.end(t)
		if err == nil {
			err = app.ErrCancelled
		}
		t.n.tell(0, failureOf(err))
		return
	}
	t.mu.Lock()
	at, last := t.at, t.last
	t.mu.Unlock()
	if at != nil {
		t.settle(at.Wait())
	}
	if last == nil {
		// No sender came: the receive ends as its transfer would have,
		// cancelled or failed.
		if err == nil {
			err = cause
		}
		if err == nil || errors.Is(err, context.Canceled) {
			err = app.ErrCancelled
		}
		last = event.Error{Kind: kindOf(err), Message: err.Error(), Err: err}
		t.mu.Lock()
		t.ended = true
		t.mu.Unlock()
	}
	t.n.end(t)
	t.n.tell(t.id, last)
}

// onReceived is core/app's Handler for a receive. With one sender, the
// receiver's events and its sender's carry the receive's ID, and the
// sender's last event ends the receive; with several, each sender's
// events carry its transfer's ID and the receiver's own carry 0.
func (t *Transfer) onReceived(at *app.Transfer, ev event.Event) {
	defer quiet() // a panic here would be core/app's goroutine's
	if t.rx.one {
		t.mu.Lock()
		if at != nil && t.at == nil {
			t.at = at
		}
		other := at != nil && at != t.at
		t.mu.Unlock()
		if other {
			return // a sender come as the receive ends: it is cancelled with it
		}
		if t.onEvent(at, ev) {
			t.cancel(nil) // the receive was this transfer: ReceiveMany returns
		}
		return
	}
	if at == nil {
		t.n.tell(0, ev)
		return
	}
	m := t.rx
	m.mu.Lock()
	s := m.byAt[at]
	if s == nil {
		s = &session{id: t.n.lastID.Add(1), at: at}
		m.byAt[at], m.byID[s.id] = s, s
	}
	switch e := ev.(type) {
	case event.Offer:
		s.offer = &e
	case event.Done, event.Error:
		delete(m.byAt, at)
		delete(m.byID, s.id)
	}
	m.mu.Unlock()
	t.n.tell(s.id, ev)
}

// session returns the sender's transfer id of a receive of several.
func (t *Transfer) session(id int64) (*session, error) {
	if t.rx == nil || t.rx.one {
		return nil, errors.New("not a receive of several senders")
	}
	t.rx.mu.Lock()
	defer t.rx.mu.Unlock()
	s := t.rx.byID[id]
	if s == nil {
		return nil, fmt.Errorf("no transfer %d in progress", id)
	}
	return s, nil
}

// AcceptTransfer (a receive of several) takes the offer of the sender
// whose transfer is id, the "transfer" field of its "offer" event.
func (t *Transfer) AcceptTransfer(id int64) (err error) {
	defer guard("accepting", &err)
	s, err := t.session(id)
	if err != nil {
		return fmt.Errorf("accepting: %w", err)
	}
	s.at.Accept()
	return nil
}

// DeclineTransfer (a receive of several) refuses the offer of the
// sender whose transfer is id; that transfer ends with an "error" event,
// KindDeclined, and the others go on.
func (t *Transfer) DeclineTransfer(id int64) (err error) {
	defer guard("declining", &err)
	s, err := t.session(id)
	if err != nil {
		return fmt.Errorf("declining: %w", err)
	}
	s.at.Decline(declinedByPerson)
	return nil
}

// CancelTransfer (a receive of several) stops the transfer id; it ends
// with an "error" event, KindCancelled. Cancelling one that has ended
// does nothing. Cancel stops the whole receive.
func (t *Transfer) CancelTransfer(id int64) (err error) {
	defer guard("cancelling", &err)
	if s, err := t.session(id); err == nil {
		s.at.Cancel(app.ErrCancelled)
	}
	return nil
}

// OfferEntriesJSONOf is OfferEntriesJSON for the sender whose transfer
// is id, in a receive of several.
func (t *Transfer) OfferEntriesJSONOf(id int64, start, count int) (_ string, err error) {
	defer guard("listing offer entries", &err)
	s, err := t.session(id)
	if err != nil {
		return "[]", nil
	}
	t.rx.mu.Lock()
	o := s.offer
	t.rx.mu.Unlock()
	if o == nil {
		return "[]", nil
	}
	return entriesJSON(o.Entries, start, count)
}
