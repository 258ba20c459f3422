//go:build !js

package app

import (
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
)

// entryPath is a receiver's and a sender's way for an entry event, one a
// file, from the engine's Emit to the front end's Handler: the
// engine's emitter (a receiver's session's, which stamps its id), the
// routing to the session's transfer, and the emitter that delivers in
// order.
type entryPath struct {
	receiver, sender func(event.Event)
	delivered        int
}

func newEntryPath() *entryPath {
	p := &entryPath{}
	on := func(*Transfer, event.Event) { p.delivered++ }

	rc := &Receiver{em: newEmitter(on)}
	rt := &Transfer{id: 1, end: event.Receiver, em: rc.em, done: make(chan struct{})}
	rt.recv, rt.session = rc, 1
	rc.many = &many{sessions: map[int]*Transfer{1: rt}}
	p.receiver = (&transfer.Emitter{F: rc.onEngine}).ForSession(1).Emit

	st := &Transfer{id: 2, end: event.Sender, em: newEmitter(on), done: make(chan struct{})}
	// SendMany's handler of the engine's events, for its one receiver.
	p.sender = (&transfer.Emitter{F: func(ev event.Event) { st.onSent(ev) }}).Emit
	return p
}

// BenchmarkEntryEventPath is one entry event from the engine's Emit to
// the Handler, on each end, boxing at the Emit included.
func BenchmarkEntryEventPath(b *testing.B) {
	e := event.EntryDone{Entry: event.Entry{Path: "src/project/internal/file_0042.go", Kind: event.KindFile, Size: 4096}, Outcome: event.Received}
	p := newEntryPath()
	b.Run("receiver", func(b *testing.B) {
		e := e
		e.Session = 1 // core/receive stamps its events itself
		b.ReportAllocs()
		for b.Loop() {
			p.receiver(e)
		}
	})
	b.Run("sender", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.sender(e)
		}
	})
}
