package mobile

// This file holds a receive of several senders at once: core/app's
// ReceiveMany, each sender's session a transfer of its own, named in
// events by core/app's Transfer.ID and answered by that ID.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// sessions is what a receive of several keeps of each sender's transfer
// in progress, by core/app's ID.
type sessions struct {
	mu     sync.Mutex
	byID   map[int64]*session
	closed bool // ReceiveMany returned: no session is left
}

// session is one sender's transfer in a receive of several.
type session struct {
	at    *app.Transfer
	offer *event.Offer
}

// maxFor is how many senders a receive takes at once: opts.MaxTransfers
// within the profile's limit, the profile's limit when 0.
func (n *Node) maxFor(opts *ReceiveOptions) (int, error) {
	switch max := n.profile.maxTransfers; {
	case opts.MaxTransfers < 0 || opts.MaxTransfers > max:
		return 0, fmt.Errorf("a receive takes 1 to %d senders at once on this device, not %d", max, opts.MaxTransfers)
	case opts.MaxTransfers == 0:
		return max, nil
	}
	return opts.MaxTransfers, nil
}

// reserve takes slots of the profile's limit for a receive of several,
// and the goroutine that runs it (see run).
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
	t := &Transfer{n: n, cancel: cancel, many: &sessions{byID: map[int64]*session{}}, ctx: ctx}
	n.transfers[t] = slots
	n.wg.Add(1)
	return t, nil
}

// receiveMany is Receive for max senders at once (max above 1).
func (n *Node) receiveMany(opts *ReceiveOptions, max int) (*Transfer, error) {
	t, err := n.reserve(max)
	if err != nil {
		return nil, err
	}
	cfg := receiveConfig(opts)
	cfg.MaxConcurrent, cfg.OnEvent = max, t.onManyEvent
	rc, err := n.app.Listen(cfg)
	if err != nil {
		n.abandon(t)
		return nil, err
	}
	t.mu.Lock()
	t.rc = rc
	t.mu.Unlock()
	n.run("receiving", func() {
		err := rc.ReceiveMany(t.ctx)
		rc.Close()
		t.many.mu.Lock()
		t.many.closed = true
		t.many.mu.Unlock()
		t.cancel(nil)
		n.end(t)
		if err == nil {
			err = app.ErrCancelled
		}
		n.tell(0, failureOf(err))
	}, func(err error) { n.tell(0, failureOf(err)) })
	return t, nil
}

// onManyEvent is core/app's Handler for a receive of several: each
// sender's events carry its transfer's ID, the receiver's own carry 0.
func (t *Transfer) onManyEvent(at *app.Transfer, ev event.Event) {
	defer quiet() // a panic here would be core/app's goroutine's
	if at == nil {
		t.n.tell(0, ev)
		return
	}
	id := at.ID()
	m := t.many
	m.mu.Lock()
	s := m.byID[id]
	if s == nil {
		s = &session{at: at}
		m.byID[id] = s
	}
	switch e := ev.(type) {
	case event.Offer:
		s.offer = &e
	case event.Done, event.Error:
		delete(m.byID, id)
	}
	m.mu.Unlock()
	t.n.tell(id, ev)
}

// session returns the sender's transfer id of a receive of several.
func (t *Transfer) session(id int64) (*session, error) {
	if t.many == nil {
		return nil, errors.New("not a receive of several senders")
	}
	t.many.mu.Lock()
	defer t.many.mu.Unlock()
	s := t.many.byID[id]
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
	t.many.mu.Lock()
	o := s.offer
	t.many.mu.Unlock()
	if o == nil {
		return "[]", nil
	}
	return entriesJSON(o.Entries, start, count)
}
