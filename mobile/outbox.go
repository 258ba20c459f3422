package mobile

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
)

// outboxRoom bounds the calls that transfers and the browse may have
// waiting for the app: enough to ride out a slow callback, few enough
// that a stalled app holds the transfers up (as a synchronous callback
// would) instead of piling up events in a phone's memory.
const outboxRoom = 64

// outbox makes every call into the app, one at a time, in the order they
// were posted, on a goroutine of its own that holds no lock of this
// package while the app runs. So an app may call any method, from inside
// any callback: PeerFound on a "peers" event, Accept or Cancel on an "offer",
// even Close (which then waits for everything but the callback it is
// called from).
//
// The goroutine runs only while calls are queued: a Node at rest has
// none. A change of the peer list queues a marker, at most one at a
// time, and the marker delivers the list as it is when its turn comes,
// skipping a version already delivered; so "peers" never goes back to
// an older list, and a burst of changes costs one call.
type outbox struct {
	events Events
	peers  func() (version uint64, list string) // the peer list as it is now
	room   chan struct{}                        // a token per queued call that holds a place

	mu          sync.Mutex
	queue       []outgoing
	peersQueued bool          // a peers marker is in queue
	running     bool          // the goroutine is draining queue
	runner      uint64        // its goroutine id, to recognise a Close made from a callback
	idle        chan struct{} // closed when the running goroutine returns
	closed      bool          // the Node closed: nothing more is queued

	peersSent uint64 // version last given in a "peers" event; the running goroutine's alone
}

// outgoing is one queued call: a call to make, or (peers) the marker of
// a changed peer list.
type outgoing struct {
	call  func(Events)
	peers bool
	room  bool // holds a token of room
}

func newOutbox(events Events, peers func() (uint64, string)) *outbox {
	return &outbox{events: events, peers: peers, room: make(chan struct{}, outboxRoom)}
}

// post queues a call from a goroutine the Node owns (a transfer, the
// browse), waiting for room while the queue is full. Once ctx, the
// Node's, is done it waits no longer: Close is winding everything down,
// maybe from inside a callback, and the few calls left (each transfer's
// last event) must still be made.
//
// Posted from the outbox's own goroutine (the app answered an offer
// from inside a callback, and core/app delivers the Accepted it causes
// on the caller's goroutine), it does not wait: the goroutine that
// makes room is the one waiting.
func (o *outbox) post(ctx context.Context, call func(Events)) {
	if o.onRunner() {
		o.push(outgoing{call: call})
		return
	}
	room := false
	select {
	case o.room <- struct{}{}:
		room = true
	case <-ctx.Done():
	}
	o.push(outgoing{call: call, room: room})
}

// onRunner says whether the caller is the goroutine making the calls.
func (o *outbox) onRunner() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.running && o.runner == goroutineID()
}

// peersChanged queues the peers marker unless one is already queued. It
// never waits: the app calls it (PeerFound), maybe from a callback.
func (o *outbox) peersChanged() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.peersQueued || o.closed {
		return
	}
	o.peersQueued = true
	o.pushLocked(outgoing{peers: true})
}

func (o *outbox) push(c outgoing) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		if c.room {
			<-o.room
		}
		return
	}
	o.pushLocked(c)
}

func (o *outbox) pushLocked(c outgoing) {
	o.queue = append(o.queue, c)
	if !o.running {
		o.running = true
		o.idle = make(chan struct{})
		go o.run()
	}
}

// run drains the queue and returns when it is empty. It is not in the
// Node's WaitGroup: Close first waits for the goroutines that post, then
// for this one (see close).
func (o *outbox) run() {
	id := goroutineID()
	o.mu.Lock()
	o.runner = id
	o.mu.Unlock()
	for {
		o.mu.Lock()
		if len(o.queue) == 0 {
			o.queue = nil // let a burst's backing array go
			o.running = false
			o.runner = 0
			close(o.idle)
			o.mu.Unlock()
			return
		}
		c := o.queue[0]
		o.queue[0] = outgoing{}
		o.queue = o.queue[1:]
		if c.peers {
			o.peersQueued = false // a change from now on queues a new marker
		}
		o.mu.Unlock()
		if c.room {
			<-o.room
		}
		o.deliver(c)
	}
}

// deliver makes one call. A panic on the way (in the binding, or in a Go
// implementation of Events) is dropped: there is nobody left to tell,
// and the calls behind it must still be made.
func (o *outbox) deliver(c outgoing) {
	defer func() { _ = recover() }()
	if !c.peers {
		c.call(o.events)
		return
	}
	v, list := o.peers()
	if v == o.peersSent {
		return
	}
	o.peersSent = v
	o.events.OnEvent(peersEvent(list))
}

// close stops queueing and waits until every queued call has been made,
// unless it is called from one of them (the app closing the Node from a
// callback): the goroutine cannot wait for itself, and makes the calls
// left once the callback returns. Call it only after every goroutine
// that posts has returned.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	if !o.running || o.runner == goroutineID() {
		o.mu.Unlock()
		return
	}
	idle := o.idle
	o.mu.Unlock()
	<-idle
}

// goroutineID is the calling goroutine's number, read from the first
// line of its stack ("goroutine 42 [running]:"). Go keeps goroutine
// identity from programs on purpose; the one thing it is used for here
// is for close to tell its own goroutine from another, which no shared
// state can: an app's Close from inside a callback and one from another
// thread while a callback runs see the same outbox.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
