package transfer

import "time"

// The guess budget: how many wrong codes the receiver checks, and how
// fast, whatever codes they were aimed at. A code is retired after
// maxAttempts wrong guesses, but retiring codes alone bounds nothing: a
// fresh code follows without end. The budget bounds the whole receiver.
//
//   - The first guessFree wrong codes are checked at once: a person who
//     mistypes, even across two codes, is never kept waiting.
//   - After that, each next guess is checked only guessWait·2^k after the
//     last wrong one (k = 0, 1, ...: 0.5 s, 1 s, 2 s, ... 16 s); a guess
//     that arrives sooner is refused unchecked (secure.ErrCodesHeld).
//   - After guessStop wrong codes no code is checked at all until a
//     person asks for a new one (Receiver.NewCode); paired senders, who
//     need no code, are still served.
//   - A wrong code stops counting 24 hours after it was checked, so the
//     odd typo over weeks of --keep never adds up to a stop.
//
// A successful transfer does not reset the budget: it would hand an
// attacker who keeps guessing a new allowance with every honest
// transfer. So at most guessStop wrong codes are checked in any 24
// hours, and in all until a person acts: 12 guesses against codes of one
// in a million (SECURITY.md has the arithmetic). Garbage in place of
// message 3 cannot be told from a wrong code and counts as one, so a
// flood of it retires codes no faster than the budget allows either.
const (
	guessFree   = 6
	guessStop   = 12
	guessWait   = 500 * time.Millisecond
	guessWindow = 24 * time.Hour
)

// guessBudget is the receiver's count of checked wrong codes. The
// Receiver's mutex guards it.
type guessBudget struct {
	wrong   []time.Time // when each counted wrong code was checked, oldest first
	stopped bool        // guessStop reached: nothing is checked until reset
}

// allow says whether a guess arriving at now may be checked.
func (b *guessBudget) allow(now time.Time) bool {
	if b.stopped {
		return false
	}
	b.expire(now)
	return !now.Before(b.next())
}

// next is when the next guess may be checked: the zero time while the
// free guesses last.
func (b *guessBudget) next() time.Time {
	n := len(b.wrong)
	if n < guessFree {
		return time.Time{}
	}
	return b.wrong[n-1].Add(guessWait << (n - guessFree))
}

// wrongAt counts a wrong code checked at now.
func (b *guessBudget) wrongAt(now time.Time) {
	b.wrong = append(b.wrong, now)
	if len(b.wrong) >= guessStop {
		b.stopped = true
	}
}

// expire forgets wrong codes checked more than guessWindow ago.
func (b *guessBudget) expire(now time.Time) {
	i := 0
	for i < len(b.wrong) && now.Sub(b.wrong[i]) >= guessWindow {
		i++
	}
	b.wrong = append(b.wrong[:0], b.wrong[i:]...)
}

// reset is a person asking for a new code: the budget starts over.
func (b *guessBudget) reset() {
	b.wrong, b.stopped = b.wrong[:0], false
}
