//go:build !js

package app

import (
	"sync"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// mark is an event that says who emitted it and its place in that
// emitter's sequence.
func mark(from, n int) event.Event { return event.Progress{Entries: from, EntriesDone: n} }

// TestEmitterOrder: events from several goroutines at once, and those a
// Handler emits inside itself, are each delivered once, one at a time,
// each goroutine's in its order and a Handler's after the event that
// made it; a drain that never finds the queue empty keeps them so as it
// moves them to the front of its array.
func TestEmitterOrder(t *testing.T) {
	const senders, each = 4, 3000
	var (
		em      *emitter
		running bool
		next    [senders + 1]int
		inside  int
	)
	em = newEmitter(func(_ *Transfer, ev event.Event) {
		if running {
			t.Error("the Handler was called while it ran")
		}
		running = true
		defer func() { running = false }()
		p := ev.(event.Progress)
		if p.EntriesDone != next[p.Entries] {
			t.Errorf("from %d: event %d, want %d", p.Entries, p.EntriesDone, next[p.Entries])
		}
		next[p.Entries]++
		if p.Entries < senders && p.EntriesDone%100 == 0 {
			em.emit(nil, mark(senders, inside)) // queued, told after this returns
			inside++
		}
	})
	var wg sync.WaitGroup
	for from := range senders {
		wg.Go(func() {
			for n := range each {
				em.emit(nil, mark(from, n))
			}
		})
	}
	wg.Wait()
	em.flush()
	for from := range senders {
		if next[from] != each {
			t.Errorf("from %d: %d of %d delivered", from, next[from], each)
		}
	}
	if next[senders] != inside || inside != senders*each/100 {
		t.Errorf("%d of the %d events emitted inside the Handler delivered", next[senders], inside)
	}
}

// A Handler that waits (on a person, say) while events pile up is told
// them all in order after it returns, and the emitter lets go of the
// array the burst grew.
func TestEmitterBurst(t *testing.T) {
	const burst = 3 * maxKeptQueue
	release, waiting := make(chan struct{}), make(chan struct{})
	var got []int
	em := newEmitter(func(_ *Transfer, ev event.Event) {
		n := ev.(event.Progress).EntriesDone
		if n == 0 {
			close(waiting)
			<-release
		}
		got = append(got, n)
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		em.emit(nil, mark(0, 0)) // delivers the burst too, once released
	}()
	<-waiting
	for n := 1; n <= burst; n++ {
		em.emit(nil, mark(0, n))
	}
	close(release)
	<-done
	em.flush()
	if len(got) != burst+1 {
		t.Fatalf("%d of %d events delivered", len(got), burst+1)
	}
	for i, n := range got {
		if n != i {
			t.Fatalf("event %d delivered as the %dth", n, i)
		}
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if cap(em.queue) > maxKeptQueue || em.next != 0 {
		t.Errorf("after the burst the queue keeps %d places, next %d", cap(em.queue), em.next)
	}
}

// An entry event, one a file, costs the way from the engine's Emit to
// the Handler no allocation beyond the boxing at that Emit, on either
// end (a receiver's session's emitter stamps the id the event already
// carries, and core/app neither copies it nor queues it in a new array).
func TestEntryEventPathAllocs(t *testing.T) {
	e := event.EntryDone{Entry: event.Entry{Path: "a/b", Kind: event.KindFile, Size: 4096}, Outcome: event.Received, Session: 1}
	var ev event.Event = e // boxed once, as the engine's Emit does
	p := newEntryPath()
	if n := testing.AllocsPerRun(100, func() { p.receiver(ev) }); n != 0 {
		t.Errorf("receiver: %v allocations per entry event", n)
	}
	if n := testing.AllocsPerRun(100, func() { p.sender(ev) }); n != 0 {
		t.Errorf("sender: %v allocations per entry event", n)
	}
	if p.delivered != 2*101 {
		t.Errorf("%d events delivered, want %d", p.delivered, 2*101)
	}
}
