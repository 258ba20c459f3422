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
	next     int // queue[next:] wait; queue[:next] are delivered and cleared
	draining bool
}

// maxKeptQueue is the most deliveries whose array the emitter keeps
// between bursts, and how many delivered ones a long drain lets pile up
// at the front before it moves the rest down.
const maxKeptQueue = 256

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
	for e.next < len(e.queue) {
		d := e.queue[e.next]
		e.queue[e.next] = delivery{} // the event is the Handler's now
		e.next++
		if e.next >= maxKeptQueue && 2*e.next >= len(e.queue) {
			// A drain that never finds the queue empty (events coming
			// as fast as they go) moves what waits to the front, so the
			// array holds no more than twice what waits.
			n := copy(e.queue, e.queue[e.next:])
			clear(e.queue[n:])
			e.queue, e.next = e.queue[:n], 0
		}
		e.mu.Unlock()
		if d.t == nil || !d.t.over() {
			e.on(d.t, d.ev)
		}
		e.mu.Lock()
	}
	// The queue is empty: its array is kept for the next events. Sliced
	// from the front instead, it shrank to nothing, and each event (one
	// a file, for a folder of small files) allocated another. One that a
	// burst grew (events that came while a Handler waited on a person)
	// is let go.
	e.queue, e.next = e.queue[:0], 0
	if cap(e.queue) > maxKeptQueue {
		e.queue = nil
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
