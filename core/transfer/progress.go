package transfer

import (
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
)

const (
	progressEvery = 250 * time.Millisecond
	diagEvery     = 5 * time.Second
)

// emitter delivers events to the front end's handler, one at a time: a
// transfer's reading and writing goroutines both report, and a handler is
// never called concurrently with itself.
//
// A receiver's session has an emitter of its own (forSession), which
// stamps each event with the session's id and hands it to the
// receiver's: so sessions that run at once never overlap either.
type emitter struct {
	mu sync.Mutex
	f  func(event.Event)

	up      *emitter // a session's: where its stamped events go
	session int
}

// forSession is the emitter of the receiver's session id.
func (e *emitter) forSession(id int) *emitter { return &emitter{up: e, session: id} }

func (e *emitter) emit(ev event.Event) {
	if e != nil && e.up != nil {
		e.up.emit(event.InSession(ev, e.session))
		return
	}
	if e == nil || e.f == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.f(ev)
}

// meter turns byte counts into Progress events (at most one per
// progressEvery, plus a last one) and, with diagnostics on, Diag events
// every diagEvery. It is owned by the goroutine that moves the
// bytes; it starts no goroutine of its own, so a stalled transfer simply
// reports nothing new.
type meter struct {
	ev      *emitter
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

func newMeter(ev *emitter, t *diag.Timers, diagEnd string, total int64, entries int) *meter {
	now := time.Now()
	return &meter{ev: ev, timers: t, diagEnd: diagEnd, total: total, entries: entries,
		started: now, lastDiag: now, lastSplit: t.Snapshot()}
}

// file starts a new current entry.
func (m *meter) file(path string, size int64) {
	m.current, m.curDone, m.curSize = path, 0, size
}

// add counts n payload bytes moved.
func (m *meter) add(n int64) {
	m.done += n
	m.curDone += n
	m.tick(false)
}

// entry counts one entry as finished.
func (m *meter) entry() { m.entriesDone++ }

// grow corrects the total when a skip or resume did not happen after all.
func (m *meter) grow(n int64) { m.total += n }

// maxETA is the longest ETA a Progress event reports; beyond it the
// ETA is 0, unknown.
const maxETA = 99 * time.Hour

// rateWarmup is how long a transfer runs before Progress reports a rate.
const rateWarmup = 500 * time.Millisecond

// tick emits what is due; final forces a Progress event.
func (m *meter) tick(final bool) {
	now := time.Now()
	if m.diagEnd != "" && now.Sub(m.lastDiag) >= diagEvery {
		sp := m.timers.Snapshot()
		m.ev.emit(event.NewDiag(m.diagEnd, sp.Sub(m.lastSplit), now.Sub(m.lastDiag)))
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
	m.ev.emit(event.Progress{
		Done: m.done, Total: m.total, Rate: m.rate, ETA: eta.Seconds(),
		Current: m.current, CurrentDone: m.curDone, CurrentSize: m.curSize,
		EntriesDone: m.entriesDone, Entries: m.entries,
	})
}

// diagEnd is the meter's diagEnd for end: end with diagnostics on, ""
// off.
func diagEnd(on bool, end string) string {
	if on {
		return end
	}
	return ""
}
