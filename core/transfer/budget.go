package transfer

import (
	"fmt"
	"sync"
	"time"
)

// The guess budget: how many wrong codes a device checks, and how fast,
// whatever codes they were aimed at. A code is retired after maxAttempts
// wrong guesses, but retiring codes alone bounds nothing: a fresh code
// follows without end. The budget bounds the whole device.
//
//   - Wrong codes add up from the last time a person acted: asked for a
//     new code (Receiver.NewCode), or started the receiver by hand
//     (BudgetConfig.ByPerson). They never expire: a guesser who paces
//     the guesses, a few a day for a year, spends the same budget as one
//     who guesses at full speed.
//   - The first guessFree are checked at once: a person who mistypes,
//     even across two codes, is never kept waiting.
//   - After that, each next guess is checked only guessWait·2^k after the
//     last wrong one (k = 0, 1, ...: 0.5 s, 1 s, 2 s, ... 16 s); a guess
//     that arrives sooner is refused unchecked (secure.ErrCodesHeld).
//   - At guessStop wrong codes the budget stops: no code is checked at
//     all until a person acts; paired senders, who need no code, are
//     still served.
//
// A successful transfer does not reset the budget: it would hand an
// attacker who keeps guessing a new allowance with every honest
// transfer. Nor does a start that no person made (at login, by a service
// manager, a restart from a tray menu): the count is kept in a
// GuessStore beside the trust store and survives it. So at most
// guessStop wrong codes are checked between two acts of a person, over a
// minute or a year: 12 guesses against codes of one in a million
// (SECURITY.md has the arithmetic). Garbage in place of message 3 cannot
// be told from a wrong code and counts as one, so a flood of it retires
// codes no faster than the budget allows either.
const (
	guessFree = 6
	guessStop = 12
	guessWait = 500 * time.Millisecond
)

// GuessRecord is a guess budget's state, as a GuessStore keeps it.
type GuessRecord struct {
	Wrong   int       // wrong codes checked since a person last acted
	Last    time.Time // when the last of them was checked (zero if none)
	Stopped bool      // no code is checked until a person acts
}

// GuessStore keeps a device's guess budget across Receivers and
// restarts (core/guessfile keeps it in a file beside the trust store).
// Load returns the zero record when nothing was kept yet; an error means
// a record exists that cannot be read, and the budget then starts
// stopped rather than fresh.
type GuessStore interface {
	Load() (GuessRecord, error)
	Save(GuessRecord) error
}

// BudgetConfig configures NewBudget.
type BudgetConfig struct {
	// Store keeps the count across Receivers and restarts; nil keeps it
	// in memory, for this Budget's life only.
	Store GuessStore
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
	store GuessStore
	now   func() time.Time
	warn  func(error)

	mu  sync.Mutex
	rec GuessRecord
}

// NewBudget opens a guess budget. A record the store cannot read (a
// damaged file, set aside by the store) starts the budget stopped, and
// the stopped record is written back, so that a restart does not find
// a fresh one: a damaged record cannot say how many guesses were
// checked, and a fresh budget would hand a guesser a new allowance for
// every damage it could cause. The person's next act starts it over
// (with ByPerson, at once). Warn is told either way.
func NewBudget(cfg BudgetConfig) *Budget {
	b := &Budget{store: cfg.Store, now: cfg.Now, warn: cfg.Warn}
	if b.now == nil {
		b.now = time.Now
	}
	if b.store != nil {
		rec, err := b.store.Load()
		switch {
		case err != nil && cfg.ByPerson:
			b.say(fmt.Errorf("reading the wrong-code count: %w; starting it over, as the receiver was started by hand", err))
		case err != nil:
			rec = GuessRecord{Stopped: true}
			b.say(fmt.Errorf("reading the wrong-code count: %w; not taking codes until a person asks for a new one (trusted devices can still send)", err))
			if err := b.store.Save(rec); err != nil {
				b.say(fmt.Errorf("saving the wrong-code count: %w", err))
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
func sane(rec GuessRecord) GuessRecord {
	rec.Wrong = max(rec.Wrong, 0)
	if rec.Wrong >= guessStop {
		rec.Stopped = true
	}
	return rec
}

func (b *Budget) say(err error) {
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
	b.rec = GuessRecord{}
	err := b.save()
	b.mu.Unlock()
	if err != nil {
		b.say(err)
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

// guessResult is what one guess under the budget came to.
type guessResult struct {
	at      time.Time // when it was checked (or refused)
	checked bool      // false: held back unchecked
	right   bool
	wrong   int       // wrong codes since a person acted, this one included
	spent   bool      // the budget is spent: no code is checked until a person acts
	next    time.Time // when the next guess may be checked, when past the free ones
}

// guess checks one guess with check, if the budget allows one now, and
// counts it if wrong. The wrong code is counted and saved before check
// runs, and taken back if the code was right: a receiver killed in
// between has counted a right code as wrong, never the other way round.
func (b *Budget) guess(check func() bool) (res guessResult, saveErr error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	res.at = b.now()
	res.wrong, res.spent = b.rec.Wrong, b.rec.Stopped
	if !b.allow(res.at) {
		return res, nil
	}
	before := b.rec
	b.rec.Wrong++
	b.rec.Last = res.at
	if b.rec.Wrong >= guessStop {
		b.rec.Stopped = true
	}
	saveErr = b.save()
	res.checked = true
	res.right = check()
	if res.right {
		b.rec = before
		if err := b.save(); saveErr == nil {
			saveErr = err
		}
		res.wrong = b.rec.Wrong
		return res, saveErr
	}
	res.wrong, res.spent = b.rec.Wrong, b.rec.Stopped
	res.next = b.next()
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
	if n < guessFree {
		return time.Time{}
	}
	return b.rec.Last.Add(guessWait << min(n-guessFree, guessStop-guessFree))
}
