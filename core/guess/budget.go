package guess

import (
	"fmt"
	"sync"
	"time"
)

// The budget's schedule (see the package doc). The count runs in blocks
// of StopAt wrong codes. In each block the first Free are checked at
// once; each next one only a wait after the last wrong code, doubling:
// Wait·2^k in the first block (0.5 s ... 16 s), LongWait·2^k in every
// later one (16 s ... 512 s). At the end of each block no code is
// checked until a person acts, and the codes shown from then on are two
// digits longer (BaseDigits, then 8, then MaxDigits). FallBack without a
// wrong code starts the count over.
const (
	Free       = 6
	StopAt     = 12
	Wait       = 500 * time.Millisecond
	LongWait   = 16 * time.Second
	FallBack   = 90 * 24 * time.Hour
	BaseDigits = 6
	MaxDigits  = 10
)

// Digits is how many digits a code the receiver picks has after wrong
// wrong codes: two more for each StopAt of them, up to MaxDigits.
func Digits(wrong int) int {
	return min(BaseDigits+2*(max(wrong, 0)/StopAt), MaxDigits)
}

// Record is a guess budget's state, as a Store keeps it.
type Record struct {
	Wrong   int       // wrong codes checked since the count last fell back
	Last    time.Time // when the last of them was checked (zero if none)
	Stopped bool      // no code is checked until a person acts
}

// Store keeps a device's guess budget across Receivers, restarts and
// processes (File keeps it in a file beside the trust store).
type Store interface {
	// Update reads the kept record, gives it to f and keeps what f
	// returns, all in one step under a lock that every other process's
	// Update waits for: two processes that check guesses at once each
	// count on from the other's count, and neither overwrites it. f gets
	// the zero record when nothing was kept yet, and an error (with the
	// zero record) when a record exists that cannot be read; an error
	// from Update means what f returned could not be kept.
	Update(f func(Record, error) Record) error
}

// Config configures NewBudget.
type Config struct {
	// Store keeps the count across Receivers, restarts and processes;
	// nil keeps it in memory, for this Budget's life only.
	Store Store
	// ByPerson says the budget is opened because a person started the
	// receiver by hand (ferry receive typed in a terminal, the app opened
	// from its icon). It lifts a stop, as Receiver.NewCode does, and
	// nothing more: the count, the wait before the next guess and the
	// length of the codes go on. The caller decides; the engine cannot
	// tell, and the arithmetic holds however many starts it is told are
	// a person's (the package doc).
	ByPerson bool
	// Now is the budget's clock (nil: time.Now). Tests set it to run
	// paced guessing over simulated days.
	Now func() time.Time
	// Warn is told of what goes wrong with the store (a damaged record
	// set aside, a write that failed), with what the budget did about
	// it; nil ignores it. It may be called from NewBudget, NewCode and
	// the receiver's handshake goroutines, never with the Budget's lock
	// held.
	Warn func(error)
}

// Budget is a device's guess budget. A front end makes one for as long
// as the device receives and gives it to every Receiver it makes
// (ReceiverConfig.Budget). It is safe for concurrent use; a guess is
// checked and counted under its lock, and, with a Store, read from and
// written to the store in one step under the store's lock, so that
// every process on the device (the CLI, the app, the daemon) counts in
// one count.
type Budget struct {
	store Store
	now   func() time.Time
	warn  func(error)

	mu  sync.Mutex
	rec Record // the last record read or written
}

// NewBudget opens a guess budget. A record the store cannot read (a
// damaged file, set aside by the store) starts the budget stopped, and
// the stopped record is written back, so that a restart does not find
// a fresh one: a damaged record cannot say how many guesses were
// checked, and a fresh budget would hand a guesser a new allowance for
// every damage it could cause. A person's act lifts the stop (with
// ByPerson, at once). Warn is told either way.
func NewBudget(cfg Config) *Budget {
	b := &Budget{store: cfg.Store, now: cfg.Now, warn: cfg.Warn}
	if b.now == nil {
		b.now = time.Now
	}
	b.mu.Lock()
	warns := b.update(b.now(), func(r *Record) {
		if cfg.ByPerson {
			r.Stopped = false
		}
	})
	b.mu.Unlock()
	b.tell(warns)
	return b
}

// tell passes warnings on to Warn, with no lock held.
func (b *Budget) tell(errs []error) {
	for _, err := range errs {
		b.Warn(err)
	}
}

// update reads the record (from the store, if there is one), applies
// the fall back after FallBack without a wrong code, gives it to f, and
// keeps the result, in one step of the store's; b.mu is held. It returns
// what Warn must be told once b.mu is released. A record that cannot be
// read is taken as this Budget's last one, stopped (see NewBudget).
func (b *Budget) update(now time.Time, f func(*Record)) (warns []error) {
	apply := func(rec Record, err error) Record {
		if err != nil {
			rec = b.rec
			rec.Stopped = true
			warns = append(warns, fmt.Errorf("reading the wrong-code count: %w; not taking codes until a person asks for a new one (trusted devices can still send)", err))
		}
		rec.Wrong = max(rec.Wrong, 0)
		if rec.Last.After(now) {
			// The clock went back: wait from now, not from then.
			rec.Last = now
		}
		if rec.Wrong > 0 && now.Sub(rec.Last) >= FallBack {
			rec.Wrong, rec.Last = 0, time.Time{}
		}
		f(&rec)
		return rec
	}
	if b.store == nil {
		b.rec = apply(b.rec, nil)
		return nil
	}
	var kept Record
	err := b.store.Update(func(rec Record, err error) Record {
		kept = apply(rec, err)
		return kept
	})
	b.rec = kept
	if err != nil {
		warns = append(warns, fmt.Errorf("saving the wrong-code count: %w (the count goes on in this process)", err))
	}
	return warns
}

// read returns the record as the store holds it now: another process
// may have counted since this one last did.
func (b *Budget) read() Record {
	b.mu.Lock()
	warns := b.update(b.now(), func(*Record) {})
	rec := b.rec
	b.mu.Unlock()
	b.tell(warns)
	return rec
}

// Warn tells the Config's Warn of err, if it has one: a failure to
// save the count, which Guess returns rather than tells, so that its
// caller can tell it once its own lock is released.
func (b *Budget) Warn(err error) {
	if b.warn != nil {
		b.warn(err)
	}
}

// Stopped says whether the budget is spent: no code is checked until a
// person acts. A front end shows it when it starts, so that a receiver
// restarted after its budget ran out says so before anyone guesses.
func (b *Budget) Stopped() bool { return b.read().Stopped }

// Wrong returns how many wrong codes the device checked since the count
// last fell back, in every process.
func (b *Budget) Wrong() int { return b.read().Wrong }

// Digits is how many digits the next code a receiver picks has.
func (b *Budget) Digits() int { return Digits(b.read().Wrong) }

// Reset is a person acting: it lifts a stop, and nothing more (the
// count, the wait and the codes' length go on). Receiver.NewCode calls
// it, and NewBudget with ByPerson; a front end calls it itself only for
// an act of a person that reaches no Receiver.
func (b *Budget) Reset() {
	b.mu.Lock()
	warns := b.update(b.now(), func(r *Record) { r.Stopped = false })
	b.mu.Unlock()
	b.tell(warns)
}

// Result is what one guess under the budget came to.
type Result struct {
	At      time.Time // when it was checked (or refused)
	Checked bool      // false: held back unchecked
	Right   bool
	Wrong   int       // wrong codes on the device, this one included
	Spent   bool      // the budget is spent: no code is checked until a person acts
	Next    time.Time // when the next guess may be checked, when past the free ones
	Digits  int       // how many digits the next code the receiver picks has
}

// Guess checks one guess with check, if the budget allows one now, and
// counts it if wrong. The count is read, the wrong code counted and
// written in one step of the store's before check runs, and taken back
// (in another step) if the code was right: a receiver killed in between
// has counted a right code as wrong, never the other way round, and a
// guess checked by another process in between is counted too. A failure
// to save is returned, for the caller to Warn once its own lock is
// released.
func (b *Budget) Guess(check func() bool) (res Result, saveErr error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	res.At = b.now()
	var before Record
	warns := b.update(res.At, func(r *Record) {
		res.Wrong, res.Spent = r.Wrong, r.Stopped
		if r.Stopped || res.At.Before(next(*r)) {
			return
		}
		before = *r
		res.Checked = true
		r.Wrong++
		r.Last = res.At
		if r.Wrong%StopAt == 0 {
			r.Stopped = true
		}
	})
	res.Digits = Digits(b.rec.Wrong)
	if !res.Checked {
		return res, join(warns)
	}
	res.Right = check()
	if res.Right {
		// Take this guess back from whatever the store holds now.
		warns = append(warns, b.update(res.At, func(r *Record) {
			if r.Wrong%StopAt == 0 && !before.Stopped {
				r.Stopped = false
			}
			r.Wrong = max(r.Wrong-1, 0)
			if r.Last.Equal(res.At) {
				r.Last = before.Last
			}
		})...)
	}
	res.Wrong, res.Spent = b.rec.Wrong, b.rec.Stopped
	res.Digits = Digits(b.rec.Wrong)
	if !res.Right && !res.Spent {
		res.Next = next(b.rec)
	}
	return res, join(warns)
}

// join makes one error of the warnings of one guess.
func join(warns []error) error {
	switch len(warns) {
	case 0:
		return nil
	case 1:
		return warns[0]
	}
	return fmt.Errorf("%w; %w", warns[0], join(warns[1:]))
}

// next is when the next guess may be checked after rec: the zero time
// while the block's free guesses last.
func next(rec Record) time.Time {
	p := rec.Wrong % StopAt
	if p < Free {
		return time.Time{}
	}
	wait := Wait
	if rec.Wrong >= StopAt {
		wait = LongWait
	}
	return rec.Last.Add(wait << (p - Free))
}
