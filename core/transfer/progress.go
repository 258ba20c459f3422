package transfer

import (
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/progress"
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

// meter is a session's count of the bytes it moved (core/progress).
type meter = progress.Meter

func newMeter(ev *emitter, t *diag.Timers, diagEnd string, total int64, entries int) *meter {
	return progress.New(ev.emit, t, diagEnd, total, entries)
}

// diagEnd is the meter's diagEnd for end: end with diagnostics on, ""
// off.
func diagEnd(on bool, end string) string {
	if on {
		return end
	}
	return ""
}
