package main

// This file holds what ferry receive keeps of its transfers, one sender
// or several (--max-transfers N above 1, core/app's ReceiveMany): each
// transfer's sender and reporter, the turns in which the person is
// asked, and, with several on a terminal, their rows (inrows.go) and
// the cancelling of one by its number. Several senders' transfers are
// told apart by their sender's name in the lines for a person and by
// their number ("transfer") in the --json events.

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

// incoming is what a receiver keeps of its transfers: each one's
// sender, the order in which the person is asked, and a reporter per
// transfer that says how it ended (serve waits for them).
type incoming struct {
	ctx      context.Context         // the command's
	stop     context.CancelCauseFunc // ends ReceiveMany (without --keep, once idle)
	rows     transferRows            // the transfers' progress
	commands bool                    // the person may type a transfer's number to cancel it

	mu     sync.Mutex
	peers  map[int64]*sender
	lone   error          // one sender at a time: how its transfer ended, for the command
	last   chan struct{}  // closed when the last question queued is over
	active int            // transfers not yet reported
	total  int            // transfers seen
	failed *receiveFailed // several, without --keep: the command's error
	hinted bool           // the person was told how to cancel one
}

// transferRows shows the transfers' progress: one sender's bar
// (progress.go, through oneRow), or a row per transfer (inRows).
type transferRows interface {
	offered(what string)
	accepted(id int64, label string, total int64)
	progress(id int64, e event.Progress)
	ended(id int64, ok bool, final string)
	cancelling(id int64)
	typed()
	pause()
	resume()
	finish()
}

// incoming is rs's, made at its first use: one sender's bar until serve
// gives several their rows.
func (rs *receiveSession) incoming() *incoming {
	rs.inOnce.Do(func() {
		last := make(chan struct{})
		close(last)
		rs.in = &incoming{ctx: context.Background(), rows: oneRow{rs.pr}, peers: make(map[int64]*sender), last: last}
	})
	return rs.in
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

// queue reserves the next turn to talk to the person: run waits for the
// turns queued before it, so that questions (several offers may wait at
// once) are asked one at a time, in the order they came.
func (m *incoming) queue() (run func(func())) {
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

// sender is t's sender, noted the first time t is seen, when its
// reporter starts. t nil (a test's events) is a sender of its own,
// without a reporter.
func (rs *receiveSession) sender(t *app.Transfer) *sender {
	m := rs.incoming()
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.peers[idOf(t)]; s != nil {
		return s
	}
	s := &sender{t: t, label: "a sender"}
	m.peers[idOf(t)] = s
	if t == nil {
		return s
	}
	m.active++
	m.total++
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		rs.report(t, s)
	}()
	return s
}

// report waits for t's end and says how it went, in its turn with the
// questions (what follows a transfer by code may ask one). One sender's
// failure is the command's to tell (serve); several senders' are told
// here, and without --keep the receiver stops once no transfer is in
// progress.
func (rs *receiveSession) report(t *app.Transfer, s *sender) {
	m := rs.in
	res := t.Wait()
	m.mu.Lock()
	label, byPerson := s.label, s.cancelled && res.Cancelled
	s.rowed = false
	m.mu.Unlock()
	final := rowFinal(res)
	if byPerson {
		final = "cancelled"
	}
	m.rows.ended(t.ID(), res.Err == nil, final)
	ctx := m.ctx
	m.queue()(func() {
		err := rs.outcome(ctx, res, label)
		switch {
		case err == nil:
			rs.received(ctx, res, label)
			return
		case byPerson:
			// Not a failure: the person asked for it.
			rs.p.infof("cancelled the transfer from %s; what arrived is kept, and the same files sent again resume", label)
			return
		case !rs.several:
			m.mu.Lock()
			m.lone = err
			m.mu.Unlock()
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
	if idle && !rs.o.keep && m.stop != nil {
		m.stop(errors.New("no transfer in progress"))
	}
}

// takeLone is how the one sender's transfer ended, once its reporter has
// told what it had to.
func (m *incoming) takeLone() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.lone
	m.lone = nil
	return err
}

// failure is the command's error once several senders' run is over:
// nil with --keep or when every transfer succeeded.
func (m *incoming) failure(keep bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed == nil || keep {
		return nil
	}
	m.failed.total = m.total
	return m.failed
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
	m := rs.in
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
		rs.wg.Add(1)
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
		defer rs.wg.Done()
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
