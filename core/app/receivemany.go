//go:build !js

package app

// This file holds ReceiveMany: a Receiver that takes several senders at
// once (ReceiveConfig.MaxConcurrent), each session of the engine's
// ServeMany handed to the front end as a Transfer of its own.

import (
	"context"
	"errors"
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
)

// many is what a running ReceiveMany keeps: the transfer of each engine
// session, by session id, and the goroutines that end them.
type many struct {
	ctx      context.Context // ReceiveMany's: the sessions' transfers are under it
	cancel   context.CancelCauseFunc
	sessions map[int]*Transfer // under Receiver.mu
	ending   sync.WaitGroup    // conclude goroutines
	done     chan struct{}     // closed when ReceiveMany returns
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
	mctx, cancel := context.WithCancelCause(ctx)
	m := &many{ctx: mctx, cancel: cancel, sessions: make(map[int]*Transfer), done: make(chan struct{})}
	rc.many, rc.busy = m, true
	rc.mu.Unlock()

	err := rc.r.ServeMany(mctx)
	m.ending.Wait()
	rc.em.flush()
	rc.mu.Lock()
	rc.busy = false
	rc.mu.Unlock()
	cause := context.Cause(mctx)
	cancel(nil)
	close(m.done)
	switch {
	case errors.Is(cause, transfer.ErrCodesStopped):
		return codesStoppedError()
	case ctx.Err() != nil, rc.isClosed():
		return nil
	}
	return err
}

func (rc *Receiver) isClosed() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.closed
}

// onMany routes an engine event of ReceiveMany to the transfer of its
// session, which its first event creates, or to the handler as the
// receiver's own.
func (rc *Receiver) onMany(m *many, ev event.Event) {
	id := event.SessionOf(ev)
	if id == 0 {
		switch e := ev.(type) {
		case event.Error, event.Done:
			return // ReceiveMany returns why it stopped
		case event.Refused:
			rc.em.emit(nil, rc.n.refused(e))
			return
		case event.CodesStopped:
			rc.mu.Lock()
			rc.stopped = true
			rc.mu.Unlock()
			rc.em.emit(nil, ev)
			rc.stopIfIdle(m)
			return
		}
		rc.em.emit(nil, ev)
		return
	}
	rc.mu.Lock()
	t := m.sessions[id]
	if t == nil {
		t = rc.n.newTransfer(m.ctx, event.Receiver, rc.em)
		t.recv, t.session = rc, id
		m.sessions[id] = t
	}
	rc.mu.Unlock()
	var (
		sum event.Summary
		err error
	)
	switch e := ev.(type) {
	case event.Done:
		sum = e.Summary
	case event.Error:
		err = e.Err
	default:
		t.onEngine(ev)
		return
	}
	// Ended on a goroutine of ReceiveMany's: the last event waits for
	// the handler to be idle, which must not hold up the engine's
	// events of the other sessions.
	m.ending.Add(1)
	go func() {
		defer m.ending.Done()
		// Under t's context: cancelled by ReceiveMany's, or by its own
		// Cancel (Result.Cancelled).
		rc.conclude(t.ctx, t, sum, err, func() {
			rc.mu.Lock()
			delete(m.sessions, id)
			rc.mu.Unlock()
			rc.stopIfIdle(m)
		})
	}()
}

// stopIfIdle ends ReceiveMany once the budget is spent and no transfer
// is in progress, unless the receiver keeps waiting (KeepWaiting).
func (rc *Receiver) stopIfIdle(m *many) {
	rc.mu.Lock()
	stop := rc.stopped && !rc.cfg.KeepWaiting && len(m.sessions) == 0
	rc.mu.Unlock()
	if stop {
		m.cancel(transfer.ErrCodesStopped)
	}
}

// cancelSession is Cancel of a ReceiveMany transfer.
func (t *Transfer) cancelSession(cause error) {
	if t.recv == nil || t.ctx.Err() != nil || t.declineWaiting(cause.Error()) {
		return
	}
	t.cancel(cause)
	t.recv.r.CancelSession(t.session, cause) // fails only once it has ended
}
