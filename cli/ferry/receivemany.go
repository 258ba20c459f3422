package main

// This file holds ferry receive --max-transfers N above 1: a receiver
// that takes up to N senders at once (core/app's ReceiveMany), each
// sender's transfer told apart by its sender's name in the lines for a
// person and by its number ("transfer") in the --json events. On a
// terminal, the person cancels one transfer by typing its number.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// manyReceive is what a receiver of several senders keeps: each
// transfer's sender, the order in which the person is asked, and a
// goroutine per transfer that reports its end (serveMany waits for
// them).
type manyReceive struct {
	ctx  context.Context         // the command's
	stop context.CancelCauseFunc // ends ReceiveMany (without --keep, once idle)

	wg       sync.WaitGroup // one reporter per transfer, and questions
	rows     *inRows        // on a terminal: a row per transfer; nil elsewhere
	commands bool           // the person may type a transfer's number to cancel it

	mu     sync.Mutex
	peers  map[int64]*sender
	last   chan struct{}  // closed when the last question queued is over
	active int            // transfers not yet reported
	total  int            // transfers seen
	failed *receiveFailed // without --keep, the command's error
	hinted bool           // the person was told how to cancel one
}

// sender is one incoming transfer's sender, as a person reads it, and
// what the person did with the transfer.
type sender struct {
	t         *app.Transfer
	label     string
	paired    bool
	rowed     bool // it has a row: accepted and not yet ended
	cancelled bool // the person cancelled it
}

func newManyReceive() *manyReceive {
	last := make(chan struct{})
	close(last)
	return &manyReceive{peers: make(map[int64]*sender), last: last}
}

// queue reserves the next turn to talk to the person: run waits for the
// turns queued before it, so that questions (several offers may wait at
// once) are asked one at a time, in the order they came.
func (m *manyReceive) queue() (run func(func())) {
	m.mu.Lock()
	prev, mine := m.last, make(chan struct{})
	m.last = mine
	m.mu.Unlock()
	return func(f func()) {
		defer close(mine)
		<-prev
		m.rows.pause() // a question must not be drawn over
		defer m.rows.resume()
		f()
	}
}

// serveMany takes up to --max-transfers senders at once until
// interrupted (--keep) or until no transfer is in progress once one has
// ended.
func (rs *receiveSession) serveMany(ctx context.Context) error {
	m := rs.many
	mctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	m.ctx, m.stop = ctx, stop
	if rs.pr.mode == progressBar {
		m.rows = newInRows(rs.p, rs.pr.now)
		defer m.rows.finish() // after wg.Wait: every row has settled
		if rs.canAsk {
			m.commands = true
			rs.q.between(rs.command)
		}
	}
	if rs.o.daemon {
		rs.p.infof("waiting for trusted devices, up to %d at once", rs.o.maxTransfers)
	} else {
		rs.p.infof("waiting for senders, up to %d at once: on the other devices run 'ferry send PATH...' and type the code", rs.o.maxTransfers)
	}
	err := rs.rc.ReceiveMany(mctx)
	m.wg.Wait()
	switch {
	case errors.Is(err, app.ErrCodesStopped):
		return codesStoppedError()
	case err != nil:
		return err
	case errors.Is(context.Cause(ctx), errInterrupted):
		if rs.o.daemon {
			rs.p.infof("stopped: %v", context.Cause(ctx))
		}
		if rs.o.keep {
			return nil
		}
		return context.Cause(ctx)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed == nil || rs.o.keep {
		return nil
	}
	m.failed.total = m.total
	return m.failed
}

// onManyEvent is onEvent for a receiver of several senders: events with
// their transfer's number, lines naming their sender.
func (rs *receiveSession) onManyEvent(t *app.Transfer, ev event.Event) {
	var id int64
	if t != nil {
		id = t.ID()
	}
	if _, failed := ev.(event.Error); !failed { // the reporter words failures
		rs.p.eventFor(ev, id)
	}
	if t == nil {
		if e, ok := ev.(event.CodeChanged); ok && e.Reason == "used" && !rs.o.daemon {
			// A code used by a transfer is replaced as it ends, the
			// others going on: later senders need the new one.
			rs.p.noticef("code %s", e.Code)
			rs.showLink(false)
			return
		}
		rs.onReceiverEvent(ev)
		return
	}
	s := rs.many.sender(rs, t)
	switch e := ev.(type) {
	case event.Connected:
		label := peerLabel(e.PeerName, e.PeerFingerprint)
		if e.Paired && e.PinnedName != "" {
			label = pairedLabel(e.PinnedName, e.PeerName, e.PeerFingerprint)
		}
		rs.many.mu.Lock()
		s.label, s.paired = label, e.Paired
		rs.many.mu.Unlock()
		if e.Paired {
			rs.p.infof("paired device %s connected from %s (no code)", label, e.Addr)
		} else {
			rs.p.infof("%s connected from %s", label, e.Addr)
		}
	case event.Offer:
		rs.offered(t, e, s.label, s.paired, func(ask func()) {
			run := rs.many.queue() // here, in the order the offers came
			rs.many.wg.Add(1)
			go func() {
				defer rs.many.wg.Done()
				run(ask)
			}()
		})
	case event.Accepted:
		if e.By == event.ByTrusted {
			rs.p.infof("accepted: %s is a trusted device (--accept-trusted)", s.label)
		}
		rs.many.mu.Lock()
		s.rowed = true
		hint := rs.many.commands && !rs.many.hinted
		rs.many.hinted = true
		rs.many.mu.Unlock()
		if hint {
			rs.p.infof("to cancel one transfer, type its number (the [N] on its row) and Enter")
		}
		rs.many.rows.accepted(t.ID(), s.label, e.TotalBytes)
	case event.Progress:
		rs.many.rows.progress(t.ID(), e)
	case event.EntryDone:
		rs.entryDone(e, " from "+s.label)
	case event.Text:
		rs.text(e)
	case event.Diag:
		rs.onReceiverEvent(ev)
	}
}

// sender is t's sender, noted the first time t is seen, when its
// reporter starts.
func (m *manyReceive) sender(rs *receiveSession, t *app.Transfer) *sender {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.peers[t.ID()]; s != nil {
		return s
	}
	s := &sender{t: t, label: "a sender"}
	m.peers[t.ID()] = s
	m.active++
	m.total++
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		rs.reportMany(t, s)
	}()
	return s
}

// reportMany waits for t's end and says how it went, in its turn with
// the questions (what follows a transfer by code may ask one); without
// --keep the receiver stops once no transfer is in progress.
func (rs *receiveSession) reportMany(t *app.Transfer, s *sender) {
	m := rs.many
	res := t.Wait()
	m.mu.Lock()
	label, byPerson := s.label, s.cancelled && res.Cancelled
	s.rowed = false
	m.mu.Unlock()
	final := rowFinal(res)
	if byPerson {
		final = "cancelled"
	}
	m.rows.ended(t.ID(), final)
	ctx := m.ctx
	m.queue()(func() {
		err := rs.outcome(ctx, res, label)
		switch {
		case err == nil:
			rs.received(ctx, res, " from "+label)
			return
		case byPerson:
			// Not a failure: the person asked for it.
			rs.p.infof("cancelled the transfer from %s; what arrived is kept, and the same files sent again resume", label)
			return
		}
		code, kind, hint := classify(err)
		rs.p.warnf("transfer from %s failed: %v", label, err)
		rs.p.stderrHint(hint)
		rs.p.eventFor(event.Error{Kind: kind, ExitCode: code, Message: err.Error(), Hint: hint}, t.ID())
		m.mu.Lock()
		if m.failed == nil {
			m.failed = &receiveFailed{first: err}
		}
		m.failed.failed++
		m.mu.Unlock()
	})
	m.mu.Lock()
	m.active--
	idle := m.active == 0
	m.mu.Unlock()
	if idle && !rs.o.keep {
		m.stop(errors.New("no transfer in progress"))
	}
}

// receiveFailed is the command's error when transfers failed, each told
// already: it counts them and exits with the first one's code.
type receiveFailed struct {
	first         error
	failed, total int
}

func (e *receiveFailed) Error() string {
	return fmt.Sprintf("%d of %d transfers failed, the first: %v", e.failed, e.total, e.first)
}
func (e *receiveFailed) Unwrap() error { return e.first }

// rowFinal is the last state of a transfer's row (inRows): what it
// received, checked, or why it failed.
func rowFinal(res app.Result) string {
	if res.Err == nil {
		return "done, checked: " + describeSummary(res.Summary)
	}
	if res.Cancelled {
		return "failed: cancelled"
	}
	_, kind, _ := classify(res.Err)
	return "failed: " + kindWords(kind)
}

// command is a line the person typed while no question was open: the
// number of a transfer to cancel, after a yes to "cancel [N] from ...?".
// It runs on the prompter's reader, so the question is asked in its
// turn, on a goroutine of its own.
func (rs *receiveSession) command(line string) {
	m := rs.many
	m.rows.typed()
	if line == "" {
		return
	}
	id, err := strconv.ParseInt(strings.Trim(line, "[]"), 10, 64)
	m.mu.Lock()
	s := m.peers[id]
	live := err == nil && s != nil && s.rowed
	var label string
	if live {
		// Its reporter is still counted in wg (it clears rowed
		// first), so wg is not at zero here.
		label = s.label
		m.wg.Add(1)
	}
	m.mu.Unlock()
	switch {
	case err != nil:
		rs.p.infof("%q is not a transfer's number: to cancel one, type its number (the [N] on its row) and Enter", cutCells(line, 40))
		return
	case !live:
		rs.p.infof("no transfer [%d] is in progress", id)
		return
	}
	run := m.queue()
	go func() {
		defer m.wg.Done()
		run(func() {
			yes, err := rs.q.confirm(s.t.Context(), fmt.Sprintf("cancel [%d] from %s?", id, label))
			if err != nil || !yes {
				return
			}
			m.mu.Lock()
			s.cancelled = true
			m.mu.Unlock()
			// Its sender may take a few seconds to hear it (the engine
			// waits for it to read why): the row says so meanwhile.
			m.rows.cancelling(id)
			s.t.Cancel(nil)
		})
	}()
}
