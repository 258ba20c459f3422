package receive

import (
	"container/list"
	"context"
	"net"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/internal/netsrc"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// Limits on connections that have not finished their handshake (or, while
// a transfer runs, their busy refusal). Each costs a goroutine, a socket
// and a few KiB of handshake state (the stream's buffers are allocated
// only once a handshake succeeds), so 64 of them stay far under the
// memory budget. When a limit is reached the oldest pending connection of
// that source (or of all) is closed: a connection that stalls ages, while
// an honest handshake finishes in milliseconds, so any number of stalled
// connections cannot lock an honest sender out.
//
// A source is an IPv4 address or a full IPv6 address (with its zone when
// link-local); one IPv6 host can take a whole /64, so a /64 has a larger
// cap of its own above its addresses' (core/internal/netsrc).
const (
	maxPendingPerSource = 8
	maxPendingPerNet    = 32
	maxPending          = 64
)

// acceptor is one Serve's (or ServeMany's) accept loop and the
// handshakes it starts. Serve owns it: start launches the loop, stop ends
// the loop and every handshake and waits for them, so no goroutine
// outlives Serve. A connection through its handshake becomes a session
// when slots has room for it, and is refused as busy otherwise.
type acceptor struct {
	r      *Receiver
	ev     *transfer.Emitter
	ctx    context.Context
	won    chan won   // connections through the handshake that took a slot
	failed chan error // the accept loop's own failure
	slots  slots      // how many sessions may start
	wg     sync.WaitGroup

	mu       sync.Mutex
	pending  list.List      // of *pendingConn, oldest first
	bySource map[string]int // by netsrc.Source.Host
	byNet    map[string]int // by netsrc.Source.Net (IPv6 /64s)
	stopping bool           // Serve is ending: close new connections unanswered
}

// slots is what decides whether one more session may start. Its methods
// are called with the acceptor's lock held.
type slots interface {
	// full reports that no session may start now: a connection is then
	// refused as busy before its handshake, told how many run (n).
	full() (n int, full bool)
	// take starts a session, if one may start.
	take() bool
}

type deadliner interface{ SetDeadline(time.Time) error }

type won struct {
	sc         *secure.Conn
	timers     *diag.Timers
	wrongCodes int // wrong codes checked before this one proved right
}

type pendingConn struct {
	nc     net.Conn
	source netsrc.Source
	el     *list.Element // nil once no longer pending
}

// start launches the accept loop; ctx's end stops it. won is buffered
// for every session that may start at once (n), so that a handshake
// never waits for Serve to take its connection.
func (r *Receiver) start(ctx context.Context, ev *transfer.Emitter, sl slots, n int) *acceptor {
	a := &acceptor{r: r, ev: ev, ctx: ctx, won: make(chan won, n), failed: make(chan error, 1), slots: sl,
		bySource: make(map[string]int), byNet: make(map[string]int)}
	if dl, ok := r.ln.(deadliner); ok {
		dl.SetDeadline(time.Time{})
	}
	a.wg.Add(1)
	go a.loop()
	return a
}

// stop refuses any later success, ends the loop and every pending
// connection by cancelling Serve's context, and waits for them.
func (a *acceptor) stop(cancel context.CancelCauseFunc) {
	a.mu.Lock()
	a.stopping = true
	a.mu.Unlock()
	cancel(nil)
	// Expiring the listener's deadline is what unblocks Accept; the
	// listener stays open for the next Serve.
	if dl, ok := a.r.ln.(deadliner); ok {
		dl.SetDeadline(time.Now())
	}
	a.wg.Wait()
	for {
		select {
		case w := <-a.won: // won while Serve was already ending
			w.sc.Close()
			a.r.releaseSlot()
		default:
			return
		}
	}
}

func (a *acceptor) loop() {
	defer a.wg.Done()
	for {
		nc, err := a.r.ln.Accept()
		if err != nil {
			if a.ctx.Err() == nil {
				a.failed <- err
			}
			return
		}
		a.admit(nc)
	}
}

// admit counts nc as pending, closing the oldest pending connection of
// its source, or of all, when a limit is reached, and starts its
// handshake, or its busy refusal if a session has started.
func (a *acceptor) admit(nc net.Conn) {
	p := &pendingConn{nc: nc, source: netsrc.Of(nc.RemoteAddr())}
	a.mu.Lock()
	if a.bySource[p.source.Host] >= maxPendingPerSource {
		a.evictOldest(func(q *pendingConn) bool { return q.source.Host == p.source.Host })
	} else if p.source.Net != "" && a.byNet[p.source.Net] >= maxPendingPerNet {
		a.evictOldest(func(q *pendingConn) bool { return q.source.Net == p.source.Net })
	}
	if a.pending.Len() >= maxPending {
		a.evict(a.pending.Front().Value.(*pendingConn))
	}
	p.el = a.pending.PushBack(p)
	a.bySource[p.source.Host]++
	if p.source.Net != "" {
		a.byNet[p.source.Net]++
	}
	running, busy := a.slots.full()
	closing := a.stopping
	n := a.pending.Len()
	a.mu.Unlock()
	a.r.cfg.hooks.OnAdmitted(n)

	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		switch {
		case closing:
			// The receiver is going away (its codes stopped, its
			// person quit, or its one session is over): the sender
			// is not told "busy", which would send it back to try
			// again, but sees the connection end as the receiver's
			// would.
			a.release(p)
			nc.Close()
			return
		case busy:
			a.r.refuseBusy(a.ctx, nc, running)
			a.release(p)
			nc.Close()
			return
		}
		a.handshake(p)
	}()
}

func (a *acceptor) handshake(p *pendingConn) {
	w, err := a.r.handshake(a.ctx, a.ev, p.nc)
	if err != nil {
		a.release(p)
		p.nc.Close()
		return
	}
	sc := w.sc
	a.mu.Lock()
	evicted := p.el == nil
	a.releaseLocked(p)
	took := !a.stopping && !evicted && a.slots.take()
	running, _ := a.slots.full()
	a.mu.Unlock()
	switch {
	case evicted:
		sc.Close()
	case took:
		a.won <- w // buffered: at most as many as there are slots
	default:
		a.r.refuseBusyConn(sc, running)
	}
}

// evict closes a pending connection; its goroutine then fails and ends.
// a.mu is held.
func (a *acceptor) evict(p *pendingConn) {
	a.releaseLocked(p)
	p.nc.Close()
}

func (a *acceptor) release(p *pendingConn) {
	a.mu.Lock()
	a.releaseLocked(p)
	a.mu.Unlock()
}

func (a *acceptor) releaseLocked(p *pendingConn) {
	if p.el == nil {
		return
	}
	a.pending.Remove(p.el)
	p.el = nil
	if a.bySource[p.source.Host]--; a.bySource[p.source.Host] == 0 {
		delete(a.bySource, p.source.Host)
	}
	if p.source.Net != "" {
		if a.byNet[p.source.Net]--; a.byNet[p.source.Net] == 0 {
			delete(a.byNet, p.source.Net)
		}
	}
}

// evictOldest evicts the oldest pending connection that match says is in
// the full bucket. a.mu is held.
func (a *acceptor) evictOldest(match func(*pendingConn) bool) {
	for e := a.pending.Front(); e != nil; e = e.Next() {
		if q := e.Value.(*pendingConn); match(q) {
			a.evict(q)
			return
		}
	}
}
