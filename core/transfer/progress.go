package transfer

import (
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/progress"
)

// Emitter delivers events to the front end's handler, one at a time: a
// transfer's reading and writing goroutines both report, and a handler is
// never called concurrently with itself.
//
// A receiver's session has an emitter of its own (forSession), which
// stamps each event with the session's id and hands it to the
// receiver's: so sessions that run at once never overlap either.
type Emitter struct {
	mu sync.Mutex
	F  func(event.Event)

	up      *Emitter // a session's: where its stamped events go
	session int
}

// ForSession is the emitter of the receiver's session id.
func (e *Emitter) ForSession(id int) *Emitter { return &Emitter{up: e, session: id} }

func (e *Emitter) Emit(ev event.Event) {
	if e != nil && e.up != nil {
		e.up.Emit(event.InSession(ev, e.session))
		return
	}
	if e == nil || e.F == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.F(ev)
}

// Meter is a session's count of the bytes it moved (core/progress).
type Meter = progress.Meter

func NewMeter(ev *Emitter, t *diag.Timers, diagEnd string, total int64, entries int) *Meter {
	return progress.New(ev.Emit, t, diagEnd, total, entries)
}

// DiagEnd is the meter's diagEnd for end: end with diagnostics on, ""
// off.
func DiagEnd(on bool, end string) string {
	if on {
		return end
	}
	return ""
}
