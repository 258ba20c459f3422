package mobile

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/transfer"
)

// Transfer is one running transfer, sending or receiving. Its methods
// are safe to call from any thread, at any time: after the transfer has
// ended they do nothing and return nil (Cancel) or an error (Accept,
// Decline).
type Transfer struct {
	id      int64
	n       *Node
	sending bool

	cancel context.CancelCauseFunc

	// receiving only
	r     *transfer.Receiver
	adv   *discovery.Advertiser // Ferry's own mDNS advertisement, if asked for
	mu    sync.Mutex
	code  string
	ended bool
}

// ID identifies the transfer in Events calls. IDs start at 1 and are
// never reused within a Node.
func (t *Transfer) ID() int64 {
	defer quiet()
	return t.id
}

// Sending reports whether this side sends (true) or receives (false).
func (t *Transfer) Sending() bool {
	defer quiet()
	return t.sending
}

// Code (receiving) is the code to show: the sender types it. It changes
// after too many wrong attempts, and on NewCode (OnCodeChanged). Empty
// when sending.
func (t *Transfer) Code() string {
	defer quiet()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.code
}

// Port (receiving) is the TCP port the receiver listens on. 0 when
// sending.
func (t *Transfer) Port() int {
	defer quiet()
	if t.r == nil {
		return 0
	}
	return t.r.Port()
}

// Advertisement (receiving) is what to register with the platform's
// service discovery (NsdManager, NWListener) so that senders nearby find
// this receiver. Nil when sending.
func (t *Transfer) Advertisement() *Advertisement {
	defer quiet()
	if t.r == nil {
		return nil
	}
	return newAdvertisement(t.n.cfg.Name, t.n.Fingerprint(), t.r.Port())
}

// Accept (receiving) takes the offer reported by OnOffer.
func (t *Transfer) Accept() (err error) {
	defer guard("accepting", &err)
	if err := t.answerable(); err != nil {
		return fmt.Errorf("accepting: %w", err)
	}
	t.r.Accept()
	return nil
}

// Decline (receiving) refuses the offer reported by OnOffer; the sender
// learns it was declined (KindDeclined), and this transfer ends with
// OnFailed, also KindDeclined.
func (t *Transfer) Decline() (err error) {
	defer guard("declining", &err)
	if err := t.answerable(); err != nil {
		return fmt.Errorf("declining: %w", err)
	}
	t.r.Decline()
	return nil
}

// NewCode (receiving) is the person asking for a new code, after
// OnCodesStopped: the receiver takes codes again, and OnCodeChanged
// brings the new code (Code returns it from then on). It returns at
// once: the new code is picked on a goroutine the Node owns, so that
// calling it from inside a callback never waits on the callbacks queued
// behind.
func (t *Transfer) NewCode() (err error) {
	defer guard("picking a new code", &err)
	if err := t.answerable(); err != nil {
		return fmt.Errorf("picking a new code: %w", err)
	}
	n := t.n
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return fmt.Errorf("picking a new code: %w", errClosed)
	}
	n.wg.Add(1)
	n.mu.Unlock()
	n.run("picking a new code", func() { t.r.NewCode() }, func(err error) { t.finish(transfer.Summary{}, err) })
	return nil
}

// Cancel stops the transfer; the peer learns it was cancelled, and this
// transfer ends with OnFailed, KindCancelled. Cancelling an ended
// transfer does nothing.
func (t *Transfer) Cancel() (err error) {
	defer guard("cancelling", &err)
	t.stop()
	return nil
}

func (t *Transfer) answerable() error {
	if t.r == nil {
		return errors.New("only a receiving transfer answers an offer")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return errors.New("the transfer has ended")
	}
	return nil
}

// stop cancels the transfer's context with ErrCancelled as the cause.
func (t *Transfer) stop() {
	t.cancel(transfer.ErrCancelled)
}

// setCode records a new code (the receiver retired the old one).
func (t *Transfer) setCode(code string) {
	t.mu.Lock()
	t.code = code
	t.mu.Unlock()
}

// finish reports the end of the transfer to the app, exactly once, and
// releases what it held.
func (t *Transfer) finish(s transfer.Summary, err error) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.mu.Unlock()
	t.cancel(nil)
	if t.adv != nil {
		t.adv.Close()
	}
	if t.r != nil {
		_ = t.r.Close()
	}
	t.n.end(t)
	if err != nil {
		t.n.emit(func(ev Events) { ev.OnFailed(t.id, failureOf(err)) })
		return
	}
	sum := summaryOf(s)
	t.n.emit(func(ev Events) { ev.OnFinished(t.id, sum) })
}
