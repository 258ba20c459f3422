// Package progress turns the bytes a session moves into the events that
// report them: Progress at most every 250 ms plus a last one, with a rate
// smoothed from the first half second on and an ETA that is 0 (unknown)
// past 99 hours, and with diagnostics on, Diag with the stage split every
// 5 s. A Meter belongs to the goroutine that moves the bytes and starts
// none of its own, so a stalled transfer simply reports nothing new.
package progress

import (
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
)

const (
	progressEvery = 250 * time.Millisecond
	diagEvery     = 5 * time.Second
)

// Meter turns byte counts into Progress events (at most one per
// progressEvery, plus a last one) and, with diagnostics on, Diag events
// every diagEvery. It is owned by the goroutine that moves the
// bytes; it starts no goroutine of its own, so a stalled transfer simply
// reports nothing new.
type Meter struct {
	emit    func(event.Event)
	timers  *diag.Timers
	diagEnd string // event.Sender or event.Receiver with diagnostics on, "" off
	entries int

	total, done int64
	entriesDone int
	current     string
	curDone     int64
	curSize     int64
	lastEmit    time.Time
	lastDone    int64
	rate        float64
	lastDiag    time.Time
	lastSplit   diag.Split
	started     time.Time
}

// New is the meter of a session that moves total bytes in entries
// entries and tells emit of its progress (and of its split every
// diagEvery when diagEnd, event.Sender or event.Receiver, is set).
func New(emit func(event.Event), t *diag.Timers, diagEnd string, total int64, entries int) *Meter {
	now := time.Now()
	return &Meter{emit: emit, timers: t, diagEnd: diagEnd, total: total, entries: entries,
		started: now, lastDiag: now, lastSplit: t.Snapshot()}
}

// File starts a new current entry.
func (m *Meter) File(path string, size int64) {
	m.current, m.curDone, m.curSize = path, 0, size
}

// Add counts n payload bytes moved.
func (m *Meter) Add(n int64) {
	m.done += n
	m.curDone += n
	m.Tick(false)
}

// Entry counts one entry as finished.
func (m *Meter) Entry() { m.entriesDone++ }

// Grow corrects the total when a skip or resume did not happen after all.
func (m *Meter) Grow(n int64) { m.total += n }

// maxETA is the longest ETA a Progress event reports; beyond it the
// ETA is 0, unknown.
const maxETA = 99 * time.Hour

// rateWarmup is how long a transfer runs before Progress reports a rate.
const rateWarmup = 500 * time.Millisecond

// Tick emits what is due; final forces a Progress event.
func (m *Meter) Tick(final bool) {
	now := time.Now()
	if m.diagEnd != "" && now.Sub(m.lastDiag) >= diagEvery {
		sp := m.timers.Snapshot()
		m.emit(event.NewDiag(m.diagEnd, sp.Sub(m.lastSplit), now.Sub(m.lastDiag)))
		m.lastDiag, m.lastSplit = now, sp
	}
	if !final && !m.lastEmit.IsZero() && now.Sub(m.lastEmit) < progressEvery {
		return
	}
	// The rate means nothing in the first moments (a few bytes in a few
	// microseconds made "34 KiB/s, eta 1h37m"): it stays 0, unknown, until
	// the transfer has run for rateWarmup, starts from the average then,
	// and is smoothed after. The last event reports the average.
	elapsed := now.Sub(m.started)
	switch {
	case final:
		if elapsed > 0 {
			m.rate = float64(m.done) / elapsed.Seconds()
		}
	case elapsed < rateWarmup:
		m.rate = 0
	case m.rate == 0:
		m.rate = float64(m.done) / elapsed.Seconds()
	default:
		if dt := now.Sub(m.lastEmit).Seconds(); dt > 0 {
			m.rate = 0.7*m.rate + 0.3*float64(m.done-m.lastDone)/dt
		}
	}
	var eta time.Duration
	if !final && m.rate > 0 && m.total > m.done {
		// Computed in seconds first: at a crawl the nanoseconds overflow
		// a Duration, and past maxETA a figure tells a person nothing.
		if secs := float64(m.total-m.done) / m.rate; secs <= maxETA.Seconds() {
			eta = time.Duration(secs * float64(time.Second))
		}
	}
	m.lastEmit, m.lastDone = now, m.done
	m.emit(event.Progress{
		Done: m.done, Total: m.total, Rate: m.rate, ETA: eta.Seconds(),
		Current: m.current, CurrentDone: m.curDone, CurrentSize: m.curSize,
		EntriesDone: m.entriesDone, Entries: m.entries,
	})
}
