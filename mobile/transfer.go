package mobile

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// Transfer is one running transfer, sending or receiving: a core/app
// Transfer (and, receiving, the core/app Receiver that waits for it).
// Its methods are safe to call from any thread, at any time: after the
// transfer has ended they do nothing and return nil (Cancel) or an error
// (Accept, Decline, NewCode).
type Transfer struct {
	n       *Node
	sending bool
	cancel  context.CancelCauseFunc

	mu    sync.Mutex
	id    int64           // the Node's number for it (Node.lastID); 0 for a receive of several
	at    *app.Transfer   // core/app's; receiving, once its sender came
	rc    *app.Receiver   // receiving only
	rx    *sessions       // receiving only: its senders
	ctx   context.Context // receiving only: its ReceiveMany's
	offer *event.Offer    // the whole offer, once one came
	ended bool            // its last event came from core/app
	last  event.Event     // that event, held until the slot is free

	// core/app's decisions once it ended (settle)
	pin      app.PinStep
	clip     app.Clip
	clipText string
}

// declinedByPerson is the reason Decline gives core/app (the history's,
// and the result's).
const declinedByPerson = "the person said no"

// ID is the transfer's number, the "transfer" field of its events,
// which starts at 1 and is never reused within a Node. A receive of several senders at once
// (ReceiveOptions.MaxTransfers above 1) is no transfer itself: its ID is
// 0, as is the "transfer" field of the receiver's own events, and each
// sender's transfer has an ID of its own (see Receive).
func (t *Transfer) ID() int64 {
	defer quiet()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.id
}

// Sending reports whether this side sends (true) or receives (false).
func (t *Transfer) Sending() bool {
	defer quiet()
	return t.sending
}

// Code (receiving) is the code to show: the sender types it. It changes
// after too many wrong attempts, and on NewCode ("code_changed"). Empty
// when sending.
func (t *Transfer) Code() string {
	defer quiet()
	if rc := t.receiver(); rc != nil {
		return rc.Code()
	}
	return ""
}

// Port (receiving) is the TCP port the receiver listens on. 0 when
// sending.
func (t *Transfer) Port() int {
	defer quiet()
	if rc := t.receiver(); rc != nil {
		return rc.Port()
	}
	return 0
}

// Advertisement (receiving) is what to register with the platform's
// service discovery (NsdManager, NWListener) so that senders nearby find
// this receiver. Nil when sending.
func (t *Transfer) Advertisement() *Advertisement {
	defer quiet()
	rc := t.receiver()
	if rc == nil {
		return nil
	}
	return newAdvertisement(t.n.cfg.Name, t.n.Fingerprint(), rc.Port())
}

// Accept (receiving) takes the offer the "offer" event told of.
func (t *Transfer) Accept() (err error) {
	defer guard("accepting", &err)
	at, err := t.offered()
	if err != nil {
		return fmt.Errorf("accepting: %w", err)
	}
	at.Accept()
	return nil
}

// Decline (receiving) refuses the offer; the sender learns it was
// declined (KindDeclined), and this transfer ends with an "error" event,
// also KindDeclined.
func (t *Transfer) Decline() (err error) {
	defer guard("declining", &err)
	at, err := t.offered()
	if err != nil {
		return fmt.Errorf("declining: %w", err)
	}
	at.Decline(declinedByPerson)
	return nil
}

// OfferEntriesJSON (receiving) returns the offer's entries [start,
// start+count) as a JSON array of objects: {"path": "dir/a.txt", "kind":
// "file"|"folder"|"text", "size": bytes, "mode": permission bits,
// "mtime": unix seconds}. The "offer" event lists the first 1000
// ("entries_total" says how many there are); a folder of a hundred
// thousand files is read here a page at a time. A range past the end is
// cut short; the result is "[]" when nothing is left or no offer came.
func (t *Transfer) OfferEntriesJSON(start, count int) (_ string, err error) {
	defer guard("listing offer entries", &err)
	t.mu.Lock()
	o := t.offer
	t.mu.Unlock()
	if o == nil {
		return "[]", nil
	}
	return entriesJSON(o.Entries, start, count)
}

// NewCode (receiving) is the person asking for a new code, after
// "codes_stopped": the receiver takes codes again, and "code_changed"
// brings the new code (Code returns it from then on). It returns at
// once: the new code is picked on a goroutine the Node owns, so that
// calling it from inside a callback never waits on the callbacks queued
// behind.
func (t *Transfer) NewCode() (err error) {
	defer guard("picking a new code", &err)
	if _, err := t.answerable(); err != nil {
		return fmt.Errorf("picking a new code: %w", err)
	}
	n, rc := t.n, t.receiver()
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return fmt.Errorf("picking a new code: %w", errClosed)
	}
	n.wg.Add(1)
	n.mu.Unlock()
	n.run("picking a new code", func() { rc.NewCode() }, func(err error) { t.stopWith(err) })
	return nil
}

// Cancel stops the transfer; the peer learns it was cancelled, and this
// transfer ends with an "error" event, KindCancelled. Cancelling an
// ended transfer does nothing.
func (t *Transfer) Cancel() (err error) {
	defer guard("cancelling", &err)
	t.stop()
	return nil
}

func (t *Transfer) receiver() *app.Receiver {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rc
}

func (t *Transfer) answerable() (*app.Transfer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.rc == nil:
		return nil, errors.New("only a receiving transfer answers an offer")
	case t.ended:
		return nil, errors.New("the transfer has ended")
	}
	return t.at, nil
}

// offered is answerable for Accept and Decline, which a receive of
// several takes by transfer id.
func (t *Transfer) offered() (*app.Transfer, error) {
	at, err := t.answerable()
	switch {
	case err != nil:
		return nil, err
	case !t.rx.one:
		return nil, errors.New("a receive of several senders answers each by its id (AcceptTransfer, DeclineTransfer)")
	case at == nil:
		return nil, errors.New("no sender has come yet")
	}
	return at, nil
}

// stop cancels the transfer's context with ErrCancelled as the cause.
func (t *Transfer) stop() { t.stopWith(app.ErrCancelled) }

func (t *Transfer) stopWith(cause error) { t.cancel(cause) }

// start keeps core/app's sent transfer and waits, on the goroutine
// begin reserved, for its end: then the transfer's slot is free, and
// only then is the last event passed on, so that an app may start the
// next transfer as soon as it hears.
func (t *Transfer) start(at *app.Transfer) {
	t.mu.Lock()
	t.at = at
	t.mu.Unlock()
	t.n.run("ending a transfer", func() {
		<-at.Done()
		t.cancel(nil)
		t.settle(at.Wait())
		t.n.end(t)
		t.mu.Lock()
		last := t.last
		t.mu.Unlock()
		t.n.tell(t.id, last)
	}, func(err error) { t.n.tell(t.id, failureOf(err)) })
}

// onEvent passes each event of the transfer on as JSON, with the
// transfer's number, and holds its last (Done or Error) for the
// goroutine that ends it: it says whether ev was that.
func (t *Transfer) onEvent(at *app.Transfer, ev event.Event) bool {
	defer quiet() // a panic here would be core/app's goroutine's
	t.mu.Lock()
	id := t.id
	switch e := ev.(type) {
	case event.CodeChanged:
		if e.Reason == "used" {
			// One receive is one transfer: the code that replaces a used
			// one would never be typed, so it is not shown.
			t.mu.Unlock()
			return false
		}
	case event.Offer:
		t.offer = &e
	}
	if t.ended {
		id = 0 // a receiver's event after the transfer's end
	}
	switch ev.(type) {
	case event.Done, event.Error:
		t.ended, t.last = true, ev // the goroutine that ends it passes it on
		t.mu.Unlock()
		return true
	}
	t.mu.Unlock()
	t.n.tell(id, ev)
	return false
}
