package receive

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
)

// A folder of small files costs the receiver more in file-system calls
// than in reading, decrypting and hashing its bytes, and one goroutine
// doing it all held one core while the machine's other core idled. So
// the last steps of a file into the folder, once its bytes are written
// to its partial file and their hash checked (its time set, its close,
// its rename into place, its confirmation), are the placer's: a
// goroutine of the session's that takes them in order while the
// session reads, writes and checks the next files. That split leaves
// the session nearly two thirds of the two goroutines' work on 4 KiB
// files; the placer doing all of a small file's file-system work
// instead (the session only reading into memory) left the session a
// quarter and made the placer the critical path, and was measured
// slower (benches/results/2026-12-05-pipe34.md).
//
// What must stay true, and how it does:
//   - A file is confirmed (to the sender, in events and in the summary)
//     only once it is in place: the placer confirms it, after Place.
//   - Confirmations keep offer order: every confirmation of an entry
//     after a queued one goes through the queue too (a skip), or waits
//     until the placer is idle (waitPlaced: a text, the folders at the
//     finish).
//   - A crash leaves every placed file complete and every other one in
//     the partial folder only, or nowhere for a file without a name: a
//     queued file is a verified partial file. A transfer that stops
//     leaves the queued files as partial files (a file without a name
//     is given its name there when it is closed unplaced).
//   - The session and the placer share the Dest only as core/place
//     allows (PreparePartialDir): the session names, opens, writes and
//     removes partial files, the placer finishes and places them.
//     What else both touch is under the queue's lock (the meter's count
//     of entries, the claims on partial files: held's lock), or atomic.
//   - The first error of the placer stops it and is the session's: it
//     came for an entry before any the session read since (stopPlacer).
//     The files queued after it stay partial files, as they would had
//     the session stopped at that entry.
//   - At most placeSlots files are queued, each an open descriptor.

// The session and the placer wake each other for several files at
// once, not per file: with files of a few KiB a wake-up per file (a
// futex call each way, and a thread spinning for work in between) costs
// about what placing one saves.
const (
	// placeSlots bounds the files queued. The session waits when they
	// are all taken and is woken once half are free.
	placeSlots = 32
	// A placer that waits is woken once placeBatch files are queued, or
	// at a file of placeAlone bytes or more (its wake-up is nothing to
	// its bytes), or placeLag after the first file queued for it (by a
	// timer: the session may be waiting for a sender that waits for
	// it), or when the session waits for it (waitPlaced, stopPlacer).
	placeBatch = 8
	placeAlone = 1 << 20
	placeLag   = 20 * time.Millisecond
)

// placeJob is one entry for the placer: a verified partial file to
// finish and place, or a skipped file's confirmation, which must not
// pass the files before it.
type placeJob struct {
	i       int
	outcome event.Outcome // Received, Resumed, or Skipped: nothing to place
	f       *place.Partial
	part    string // f's name
	spare   bool   // part is not the entry's own name: removed if it fails
}

// placer is the queue between the session and its placing goroutine
// (placeLoop), which the session starts (startPlacer) and stops and
// waits for (stopPlacer). Everything but the channels and failed is
// under mu.
type placer struct {
	on   bool          // a placing goroutine runs (into a Dest, never a Sink)
	done chan struct{} // closed when placeLoop returns
	// One slot each, so that a nudge is never lost and never blocks:
	// room wakes the session, work the placer.
	room, work chan struct{}

	mu          sync.Mutex
	jobs        [placeSlots]placeJob // a ring: head, then n more
	head, n     int
	sessionWait int // what the session waits for: 0 nothing, waitRoom, waitIdle
	placerWaits bool
	lag         *time.Timer // wakes the placer placeLag after the first file queued for it
	quit        bool        // the session has no more: return once the queue is empty
	err         error       // the placer's first error; it takes no job after it
	placed      int         // entries the placer confirmed
	counted     int         // of which the meter was told (the session's)
	// failed is set when the placer failed, before it breaks the
	// session's read: arm checks it after moving the read deadline,
	// which could otherwise undo the break.
	failed atomic.Bool
}

const (
	waitRoom = 1 + iota
	waitIdle
)

// errPlacing is what the session's read returns once the placer failed;
// stopPlacer replaces it with the placer's error.
var errPlacing = errors.New("placing a file failed")

// startPlacer starts the placer at the first file into the folder, once
// the partial folder checked out: something in its way stops the
// transfer at that file's start.
func (s *rsession) startPlacer(path string) error {
	if err := s.dest.PreparePartialDir(); err != nil {
		return fmt.Errorf("receiving %q: %w", path, err)
	}
	p := &s.pl
	p.on = true
	p.done = make(chan struct{})
	p.room = make(chan struct{}, 1)
	p.work = make(chan struct{}, 1)
	p.lag = time.AfterFunc(placeLag, func() {
		p.mu.Lock()
		p.nudgePlacer()
		p.mu.Unlock()
	})
	p.lag.Stop()
	go s.placeLoop()
	return nil
}

// stopPlacer lets the placer finish what is queued, and waits for it to
// return. The placer's error, if it had one, is the session's: it came
// for an entry before the one err, if any, came in; what it left queued
// is closed and stays partial.
func (s *rsession) stopPlacer(err error) error {
	p := &s.pl
	if !p.on {
		return err
	}
	p.mu.Lock()
	p.quit = true
	p.nudgePlacer()
	p.mu.Unlock()
	<-p.done
	p.lag.Stop() // if it fires still, the placer waits no more: it does nothing
	p.on = false
	s.countPlaced()
	if p.err == nil {
		return err
	}
	for ; p.n > 0; p.n-- {
		j := &p.jobs[p.head]
		s.unqueue(j)
		p.head = (p.head + 1) % len(p.jobs)
	}
	return p.err
}

// unqueue closes a queued file that will not be placed: it stays for
// resume, unless it is a spare, which nothing resumes.
func (s *rsession) unqueue(j *placeJob) {
	if j.f == nil {
		return
	}
	j.f.Close()
	if j.spare {
		s.dest.RemovePartial(j.part)
	}
	s.releasePart(j.part)
	*j = placeJob{}
}

// nudgePlacer wakes the placer if it waits. p.mu is held.
func (p *placer) nudgePlacer() {
	if p.placerWaits {
		p.placerWaits = false
		p.work <- struct{}{}
	}
}

// wait parks the session until the placer nudges it for why (waitRoom,
// waitIdle) or ctx ends. p.mu is held, and held again on return.
func (p *placer) wait(ctx context.Context, why int) error {
	p.sessionWait = why
	p.mu.Unlock()
	var err error
	select {
	case <-p.room:
	case <-ctx.Done():
		err = transfer.CancelError(ctx)
	}
	p.mu.Lock()
	p.sessionWait = 0
	return err
}

// reserve returns the job the next entry goes to, once one is free; it
// is the placer's only after push. It tells the meter of the entries
// placed meanwhile, so that Progress counts them as they go.
func (s *rsession) reserve(ctx context.Context) (*placeJob, error) {
	p := &s.pl
	p.mu.Lock()
	defer p.mu.Unlock()
	s.countPlacedLocked()
	for p.err == nil && p.n == len(p.jobs) {
		if err := p.wait(ctx, waitRoom); err != nil {
			return nil, err
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return &p.jobs[(p.head+p.n)%len(p.jobs)], nil
}

// push hands the reserved job, of an entry of size bytes, to the
// placer, waking it if it waits and a batch is due (see placeBatch).
func (p *placer) push(size int64) {
	p.mu.Lock()
	p.n++
	switch {
	case !p.placerWaits:
	case p.n >= placeBatch || size >= placeAlone:
		p.nudgePlacer()
	case p.n == 1:
		p.lag.Reset(placeLag)
	}
	p.mu.Unlock()
}

// waitPlaced waits until the placer has placed and confirmed everything
// queued, so that the session may place and confirm entries itself, and
// returns the placer's error if it failed.
func (s *rsession) waitPlaced(ctx context.Context) error {
	p := &s.pl
	if !p.on {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nudgePlacer() // what is queued will not make a batch
	for p.err == nil && p.n > 0 {
		if err := p.wait(ctx, waitIdle); err != nil {
			return err
		}
	}
	s.countPlacedLocked()
	return p.err
}

// countPlaced tells the meter, which is the session's, of the entries
// the placer confirmed since it last did.
func (s *rsession) countPlaced() {
	s.pl.mu.Lock()
	s.countPlacedLocked()
	s.pl.mu.Unlock()
}

func (s *rsession) countPlacedLocked() {
	for ; s.pl.counted < s.pl.placed; s.pl.counted++ {
		s.meter.Entry()
	}
}

// take returns the oldest queued job, waiting for one; nil once the
// session quit and nothing is queued.
func (p *placer) take() *placeJob {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.n == 0 {
		if p.quit {
			return nil
		}
		p.placerWaits = true
		p.mu.Unlock()
		<-p.work
		p.mu.Lock()
	}
	return &p.jobs[p.head]
}

// release ends the oldest job, placed (err nil) or not, and wakes the
// session if it waits and what it waits for is there: half the slots
// free, so that it queues several files a wake-up, or nothing queued.
// It reports whether the placer goes on; after an error the job stays
// queued, for stopPlacer.
func (p *placer) release(err error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.err = err
	} else {
		p.placed++
		p.jobs[p.head] = placeJob{}
		p.head = (p.head + 1) % len(p.jobs)
		p.n--
	}
	wake := err != nil || p.n == 0 || (p.sessionWait == waitRoom && p.n <= len(p.jobs)/2)
	if p.sessionWait != 0 && wake {
		p.sessionWait = 0
		p.room <- struct{}{}
	}
	return err == nil
}

// placeLoop places and confirms the queued entries in order until the
// session quits or one fails.
func (s *rsession) placeLoop() {
	defer close(s.pl.done)
	for {
		j := s.pl.take()
		if j == nil {
			return
		}
		var err error
		if j.f == nil {
			s.report(j.i, j.outcome, s.final(j.i), false)
		} else {
			err = s.placeFile(j)
		}
		if !s.pl.release(err) {
			// The session may be blocked reading the next entry, which
			// may never come (a sender that waits for the abort): break
			// the read, as a cancellation does.
			s.pl.failed.Store(true)
			s.Conn.NetConn().SetReadDeadline(time.Now())
			return
		}
	}
}

// placeFile gives a verified partial file its mode and time, closes it,
// moves it into place and confirms it, with the errors the session's
// own path gave for each step. Once Finish took the file, a failure
// leaves it partial, as it did: it is no longer the queue's to close.
func (s *rsession) placeFile(j *placeJob) error {
	e := s.entries[j.i].Entry
	f, part := j.f, j.part
	j.f = nil
	defer s.releasePart(part)
	if err := s.dest.Finish(f, part, e.Mode, e.ModTime); err != nil {
		return fmt.Errorf("finishing %q: %w", e.Path, place.DiskError(err))
	}
	saved, replaced, err := s.dest.Place(f, s.final(j.i))
	if err != nil {
		return fmt.Errorf("placing %q: %w", e.Path, err)
	}
	s.report(j.i, j.outcome, saved, replaced)
	return nil
}
