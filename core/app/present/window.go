package present

import "time"

// Window measures a transfer's rate over its last RateSpan of samples,
// so that a stall, and the recovery after one, weigh only while they are
// recent, and says when no byte moved for StallAfter. The engine's
// Progress events carry a rate smoothed from the start; a front end that
// redraws between events (the CLI's bars, every half second) feeds a
// Window the count it last saw at each redraw, and so sees a stall as
// it happens, which the engine, reporting nothing while nothing moves,
// cannot say.
//
// The zero Window is ready to use; it belongs to one goroutine.
type Window struct {
	samples    []sample
	lastChange time.Time // when done last changed
	lastDone   int64
}

type sample struct {
	t    time.Time
	done int64
}

const (
	// RateSpan is how far back the rate looks.
	RateSpan = 5 * time.Second
	// RateMinOf is the least span a rate is known over: over less, a
	// burst would read as the rate.
	RateMinOf = time.Second
	// StallAfter is how long without a byte makes a transfer stalled.
	StallAfter = 2 * time.Second
	// maxSamples bounds the memory of a window fed faster than
	// RateSpan empties it.
	maxSamples = 64
)

// Add notes that done bytes had moved at t. Times must not go back.
func (w *Window) Add(t time.Time, done int64) {
	if w.lastChange.IsZero() || done != w.lastDone {
		w.lastChange, w.lastDone = t, done
	}
	w.samples = append(w.samples, sample{t, done})
	// Keep the newest sample that is at least RateSpan old, and
	// everything after it.
	drop := 0
	for drop+1 < len(w.samples) && t.Sub(w.samples[drop+1].t) >= RateSpan {
		drop++
	}
	if n := len(w.samples) - drop; n > maxSamples {
		drop = len(w.samples) - maxSamples
	}
	if drop > 0 {
		w.samples = append(w.samples[:0], w.samples[drop:]...)
	}
}

// Rate returns bytes per second over the window, and whether it is
// known (the window spans at least RateMinOf).
func (w *Window) Rate() (float64, bool) {
	if len(w.samples) < 2 {
		return 0, false
	}
	first, last := w.samples[0], w.samples[len(w.samples)-1]
	span := last.t.Sub(first.t)
	if span < RateMinOf {
		return 0, false
	}
	return float64(last.done-first.done) / span.Seconds(), true
}

// Stalled says whether no byte moved for StallAfter up to t.
func (w *Window) Stalled(t time.Time) bool {
	return !w.lastChange.IsZero() && t.Sub(w.lastChange) >= StallAfter
}

// Estimate is what a Window says about a transfer at one moment.
type Estimate struct {
	// Stalled: no byte moved for StallAfter. Rate and Left are then 0,
	// as a rate from before the stall would promise what is not coming.
	Stalled bool
	// Rate is bytes per second over the window, 0 when unknown.
	Rate float64
	// Left is the seconds the rest takes at Rate, when Rate is known. A
	// float, so that a crawling rate overflows no Duration; the front
	// end decides past what figure an estimate means nothing.
	Left float64
}

// Estimate reads the window at t for a transfer with done of total
// bytes moved.
func (w *Window) Estimate(t time.Time, done, total int64) Estimate {
	if w.Stalled(t) {
		return Estimate{Stalled: true}
	}
	rate, known := w.Rate()
	if !known || rate <= 0 {
		return Estimate{}
	}
	return Estimate{Rate: rate, Left: float64(total-done) / rate}
}
