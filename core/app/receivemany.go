//go:build !js

package app

// This file holds the one way a Receiver takes senders: a run of the
// engine's loop (ServeMany, or Serve, the same loop told to start one
// session), each of whose sessions becomes a Transfer.
// ReceiveMany is a run until its context ends, with up to
// ReceiveConfig.MaxConcurrent sessions at once; Receive is a run that
// ends with its first session, whose Transfer it returned before any
// sender came (a limit of one sender, and one transfer).

import (
	"context"
	"errors"
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
)

// many is one run of the engine's loop: the transfer of each engine session, by
// session id, and the goroutines that end them.
type many struct {
	ctx      context.Context // the run's: its sessions' transfers are under it
	cancel   context.CancelCauseFunc
	sessions map[int]*Transfer // under Receiver.mu
	ending   sync.WaitGroup    // conclude goroutines
	done     chan struct{}     // closed when the run's last event is out

	// first is Receive's transfer, handed out before any sender came:
	// the run's first session becomes it, and the run ends with it,
	// its outcome kept in end (under Receiver.mu). nil for ReceiveMany.
	first *Transfer
	end   *sessionEnd
}

// sessionEnd is how an engine session ended.
type sessionEnd struct {
	sum event.Summary
	err error
}

// Receive waits for the next sender, on a goroutine of its own, and
// returns that transfer at once: its events, from the first connection
// to its end, go to the ReceiveConfig's OnEvent, and so do the
// receiver's own events while it waits (with it, not nil). One transfer
// at a time: Receive again once it is Done (the port and the budget
// stay); a sender that comes meanwhile is refused as busy. It is
// ReceiveMany's run with a limit of one sender, ended by the end of its
// first transfer (the engine's Serve). ctx cancels the wait and the
// transfer.
func (rc *Receiver) Receive(ctx context.Context) (*Transfer, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err := rc.canWait(); err != nil {
		return nil, err
	}
	if rc.cfg.MaxConcurrent > 1 {
		return nil, errors.New("a receiver of several senders at once serves them with ReceiveMany")
	}
	t := rc.n.newTransfer(ctx, event.Receiver, rc.em)
	t.recv, t.one = rc, true
	// The run is under the transfer: its Cancel before a sender came
	// ends the wait.
	m := rc.startLocked(t.ctx, t)
	go func() {
		err := rc.run(m)
		rc.mu.Lock()
		end := m.end
		rc.mu.Unlock()
		sum := event.Summary{}
		if end != nil { // a sender came: its outcome, not the run's end
			sum, err = end.sum, end.err
		}
		rc.conclude(t, sum, err, func() { rc.idle() })
		close(m.done)
	}()
	return t, nil
}

// ReceiveMany serves senders, up to ReceiveConfig.MaxConcurrent at once,
// until ctx ends or the Receiver is closed; beyond the limit a sender is
// refused as busy and told how many transfers are in progress. Each
// sender that passes its handshake becomes a Transfer of its own: the
// Handler gets its events with it, from its event.Connected (the first:
// a Transfer the Handler has not seen yet is a new sender) to its
// event.Done or event.Error, and its Accept and Decline answer its own
// offer, whichever other questions are open. Each is recorded in the
// history on its own. A code the receiver picked is replaced after each
// transfer that used it ends, without cutting the others; the guess
// budget is the Node's, shared by every handshake.
//
// It returns once every transfer it started has ended and its last
// event is out: nil when ctx ended or Close was called, an error
// wrapping ErrCodesStopped when the budget is spent (without
// KeepWaiting, once the transfers in progress have ended), or why the
// port failed.
func (rc *Receiver) ReceiveMany(ctx context.Context) error {
	rc.mu.Lock()
	if err := rc.canWait(); err != nil {
		rc.mu.Unlock()
		return err
	}
	m := rc.startLocked(ctx, nil)
	rc.mu.Unlock()

	err := rc.run(m)
	rc.idle()
	cause := context.Cause(m.ctx)
	m.cancel(nil)
	close(m.done)
	switch {
	case errors.Is(cause, transfer.ErrCodesStopped):
		return codesStoppedError()
	case ctx.Err() != nil, rc.isClosed():
		return nil
	}
	return err
}

// startLocked begins a run under parent, for Receive's first or (nil)
// for ReceiveMany; rc.mu is held and canWait said yes.
func (rc *Receiver) startLocked(parent context.Context, first *Transfer) *many {
	ctx, cancel := context.WithCancelCause(parent)
	m := &many{ctx: ctx, cancel: cancel, sessions: make(map[int]*Transfer), done: make(chan struct{}), first: first}
	rc.many, rc.busy = m, true
	return m
}

// run serves m until its context ends, and returns once every transfer
// it started has been concluded and every event is out. Receive's run
// is the engine's Serve, the same loop told to start one session: a
// sender whose handshake ends as the first transfer ends is told busy,
// never given a session the run's end would cut.
func (rc *Receiver) run(m *many) error {
	var err error
	if m.first != nil {
		_, err = rc.r.Serve(m.ctx) // its outcome is the first session's events
	} else {
		err = rc.r.ServeMany(m.ctx)
	}
	m.ending.Wait()
	rc.em.flush()
	return err
}

// idle lets the receiver wait for senders again.
func (rc *Receiver) idle() {
	rc.mu.Lock()
	rc.busy = false
	rc.mu.Unlock()
}

func (rc *Receiver) isClosed() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.closed
}

// onEngine is the engine's OnEvent: it routes each event of a session to
// its transfer, which its first event creates (or binds, for Receive),
// and makes the receiver's decisions on the way.
func (rc *Receiver) onEngine(ev event.Event) {
	rc.mu.Lock()
	m := rc.many
	rc.mu.Unlock()
	id := event.SessionOf(ev)
	if id == 0 || m == nil {
		rc.onReceiverEvent(m, ev)
		return
	}
	t := rc.sessionTransfer(m, id)
	if t == nil {
		return
	}
	switch ev.(type) {
	case event.Done, event.Error:
		rc.endSession(m, t, id, ev)
	default:
		t.onEngine(ev)
	}
}

// endSession takes session id's last event (Done or Error), t's. It is
// apart from onEngine, which every event passes, because the end that
// the goroutine below keeps lives on the heap: declared in onEngine, it
// was allocated (650 bytes) for every entry event too.
func (rc *Receiver) endSession(m *many, t *Transfer, id int, ev event.Event) {
	var end sessionEnd
	switch e := ev.(type) {
	case event.Done:
		end.sum = e.Summary
	case event.Error:
		end.err = e.Err
	}
	if t == m.first {
		// Receive's transfer: the run (Serve) ends with it, and
		// Receive concludes it once the engine has let go of the port.
		rc.mu.Lock()
		m.end = &end
		delete(m.sessions, id)
		rc.mu.Unlock()
		return
	}
	// Ended on a goroutine of the run's: the last event waits for the
	// handler to be idle, which must not hold up the engine's events of
	// the other sessions.
	m.ending.Add(1)
	go func() {
		defer m.ending.Done()
		rc.conclude(t, end.sum, end.err, func() {
			rc.mu.Lock()
			delete(m.sessions, id)
			rc.mu.Unlock()
			rc.stopIfIdle(m)
		})
	}()
}

// sessionTransfer is the transfer of session id of run m: made at its
// first event, or Receive's, which its first session becomes. nil for a
// session that Receive's run does not take (one begun as it ended: the
// end of the run cuts it).
func (rc *Receiver) sessionTransfer(m *many, id int) *Transfer {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if t := m.sessions[id]; t != nil {
		return t
	}
	t := m.first
	switch {
	case t == nil:
		t = rc.n.newTransfer(m.ctx, event.Receiver, rc.em)
		t.recv = rc
	case t.sessionID() != 0 || m.end != nil:
		return nil
	}
	t.mu.Lock()
	t.session = id
	t.mu.Unlock()
	m.sessions[id] = t
	return t
}

// onReceiverEvent handles an event of the receiver's own, of no session:
// it goes with Receive's transfer while that waits, with nil otherwise.
func (rc *Receiver) onReceiverEvent(m *many, ev event.Event) {
	var first *Transfer
	if m != nil {
		first = m.first
	}
	switch e := ev.(type) {
	case event.Error, event.Done:
		return // the run's end: Receive's transfer or ReceiveMany says why
	case event.Refused:
		ev = rc.n.refused(e)
	case event.CodesStopped:
		rc.mu.Lock()
		rc.stopped = true
		rc.mu.Unlock()
		rc.emitTo(first, ev)
		if m != nil {
			rc.stopIfIdle(m) // a transfer under way may finish
		}
		return
	}
	rc.emitTo(first, ev)
}

// emitTo hands a receiver's event to the handler with t, which may have
// ended or be nil.
func (rc *Receiver) emitTo(t *Transfer, ev event.Event) {
	if t != nil && t.over() {
		t = nil // a receiver's event, between transfers
	}
	rc.em.emit(t, ev)
}

// stopIfIdle ends a run once the budget is spent and no transfer is in
// progress, unless the receiver keeps waiting (KeepWaiting).
func (rc *Receiver) stopIfIdle(m *many) {
	rc.mu.Lock()
	stop := rc.stopped && !rc.cfg.KeepWaiting && len(m.sessions) == 0
	rc.mu.Unlock()
	if stop {
		m.cancel(transfer.ErrCodesStopped)
	}
}

// cancelSession is Cancel of a receiving transfer whose sender came.
// Receive's ends its run, which cancels its session.
func (t *Transfer) cancelSession(cause error) {
	if t.recv == nil || t.ctx.Err() != nil || (!t.one && t.declineWaiting(cause.Error())) {
		return
	}
	t.cancel(cause)
	t.recv.r.CancelSession(t.sessionID(), cause) // fails only once it has ended
}
