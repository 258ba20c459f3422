package app

import (
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
)

// emitter delivers events to a Handler one at a time, in the order they
// were emitted, across the transfers that share it (a Receiver's, or a
// SendMany's). A Handler may act on an event at once: Accept inside it
// emits Accepted, which is queued and delivered after the Handler
// returns, by the goroutine already delivering. So emit never waits on a
// Handler that is running, and never deadlocks on one that calls back.
type emitter struct {
	on Handler

	mu       sync.Mutex
	idle     sync.Cond // signalled when delivering stops
	queue    []delivery
	draining bool
}

type delivery struct {
	t  *Transfer
	ev event.Event
}

func newEmitter(on Handler) *emitter {
	e := &emitter{on: on}
	e.idle.L = &e.mu
	return e
}

// emit queues ev for t and, unless a delivery is running, delivers the
// queue.
func (e *emitter) emit(t *Transfer, ev event.Event) {
	if e.on == nil || ev == nil {
		return
	}
	e.mu.Lock()
	e.queue = append(e.queue, delivery{t, ev})
	if e.draining {
		e.mu.Unlock()
		return
	}
	e.draining = true
	for len(e.queue) > 0 {
		d := e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
		if d.t == nil || !d.t.over() {
			e.on(d.t, d.ev)
		}
		e.mu.Lock()
	}
	e.draining = false
	e.idle.Broadcast()
	e.mu.Unlock()
}

// flush waits until every event emitted so far is delivered. Never from
// inside a Handler.
func (e *emitter) flush() {
	e.mu.Lock()
	for e.draining {
		e.idle.Wait()
	}
	e.mu.Unlock()
}
