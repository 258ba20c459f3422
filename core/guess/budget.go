package guess

import (
	"fmt"
	"sync"
	"time"
)

// The budget's schedule (see the package doc): Free wrong codes checked
// at once, then each next one only Wait·2^k after the last, and none at
// StopAt until a person acts.
const (
	Free   = 6
	StopAt = 12
	Wait   = 500 * time.Millisecond
)

// Record is a guess budget's state, as a Store keeps it.
type Record struct {
	Wrong   int       // wrong codes checked since a person last acted
	Last    time.Time // when the last of them was checked (zero if none)
	Stopped bool      // no code is checked until a person acts
}

// Store keeps a device's guess budget across Receivers and
// restarts (File keeps it in a file beside the trust store).
// Load returns the zero record when nothing was kept yet; an error means
// a record exists that cannot be read, and the budget then starts
// stopped rather than fresh.
type Store interface {
	Load() (Record, error)
	Save(Record) error
}

// Config configures NewBudget.
type Config struct {
	// Store keeps the count across Receivers and restarts; nil keeps it
	// in memory, for this Budget's life only.
	Store Store
	// ByPerson says the budget is opened because a person started the
	// receiver by hand (ferry receive typed in a terminal, the app opened
	// from its icon): the count starts over, as it does on
	// Receiver.NewCode. A start at login, by a service manager or from a
	// tray's restart is not a person acting: the count survives it. The
	// caller decides; the engine cannot tell.
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
// (ReceiverConfig.Budget), so that a new Receiver per transfer, or a
// receiver restarted from the tray, spends the same budget. It is safe
// for concurrent use; a guess is checked and counted under its lock.
type Budget struct {
	store Store
	now   func() time.Time
	warn  func(error)

	mu  sync.Mutex
	rec Record
}

// NewBudget opens a guess budget. A record the store cannot read (a
// damaged file, set aside by the store) starts the budget stopped, and
// the stopped record is written back, so that a restart does not find
// a fresh one: a damaged record cannot say how many guesses were
// checked, and a fresh budget would hand a guesser a new allowance for
// every damage it could cause. The person's next act starts it over
// (with ByPerson, at once). Warn is told either way.
func NewBudget(cfg Config) *Budget {
	b := &Budget{store: cfg.Store, now: cfg.Now, warn: cfg.Warn}
	if b.now == nil {
		b.now = time.Now
	}
	if b.store != nil {
		rec, err := b.store.Load()
		switch {
		case err != nil && cfg.ByPerson:
			b.Warn(fmt.Errorf("reading the wrong-code count: %w; starting it over, as the receiver was started by hand", err))
		case err != nil:
			rec = Record{Stopped: true}
			b.Warn(fmt.Errorf("reading the wrong-code count: %w; not taking codes until a person asks for a new one (trusted devices can still send)", err))
			if err := b.store.Save(rec); err != nil {
				b.Warn(fmt.Errorf("saving the wrong-code count: %w", err))
			}
		}
		if err == nil {
			b.rec = sane(rec)
		} else {
			b.rec = rec
		}
	}
	if cfg.ByPerson {
		b.Reset()
	}
	return b
}

// sane makes a record that another build or a hand edit wrote agree with
// the rules: a count at the stop is stopped.
func sane(rec Record) Record {
	rec.Wrong = max(rec.Wrong, 0)
	if rec.Wrong >= StopAt {
		rec.Stopped = true
	}
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
func (b *Budget) Stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rec.Stopped
}

// Wrong returns how many wrong codes were checked since a person last
// acted.
func (b *Budget) Wrong() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rec.Wrong
}

// Reset is a person acting: the count starts over. Receiver.NewCode
// calls it, and NewBudget with ByPerson; a front end calls it itself
// only for an act of a person that reaches no Receiver.
func (b *Budget) Reset() {
	b.mu.Lock()
	b.rec = Record{}
	err := b.save()
	b.mu.Unlock()
	if err != nil {
		b.Warn(err)
	}
}

// save writes the record to the store; b.mu is held.
func (b *Budget) save() error {
	if b.store == nil {
		return nil
	}
	if err := b.store.Save(b.rec); err != nil {
		return fmt.Errorf("saving the wrong-code count: %w (the count goes on for as long as this receiver runs)", err)
	}
	return nil
}

// Result is what one guess under the budget came to.
type Result struct {
	At      time.Time // when it was checked (or refused)
	Checked bool      // false: held back unchecked
	Right   bool
	Wrong   int       // wrong codes since a person acted, this one included
	Spent   bool      // the budget is spent: no code is checked until a person acts
	Next    time.Time // when the next guess may be checked, when past the free ones
}

// Guess checks one guess with check, if the budget allows one now, and
// counts it if wrong. The wrong code is counted and saved before check
// runs, and taken back if the code was right: a receiver killed in
// between has counted a right code as wrong, never the other way round.
func (b *Budget) Guess(check func() bool) (res Result, saveErr error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	res.At = b.now()
	res.Wrong, res.Spent = b.rec.Wrong, b.rec.Stopped
	if !b.allow(res.At) {
		return res, nil
	}
	before := b.rec
	b.rec.Wrong++
	b.rec.Last = res.At
	if b.rec.Wrong >= StopAt {
		b.rec.Stopped = true
	}
	saveErr = b.save()
	res.Checked = true
	res.Right = check()
	if res.Right {
		b.rec = before
		if err := b.save(); saveErr == nil {
			saveErr = err
		}
		res.Wrong = b.rec.Wrong
		return res, saveErr
	}
	res.Wrong, res.Spent = b.rec.Wrong, b.rec.Stopped
	res.Next = b.next()
	return res, saveErr
}

// allow says whether a guess arriving at now may be checked; b.mu is held.
// A clock that went back (the last wrong code after now, as a record
// saved before the clock changed says) waits from now, not from then.
func (b *Budget) allow(now time.Time) bool {
	if b.rec.Last.After(now) {
		b.rec.Last = now
	}
	return !b.rec.Stopped && !now.Before(b.next())
}

// next is when the next guess may be checked: the zero time while the
// free guesses last; b.mu is held.
func (b *Budget) next() time.Time {
	n := b.rec.Wrong
	if n < Free {
		return time.Time{}
	}
	return b.rec.Last.Add(Wait << min(n-Free, StopAt-Free))
}
