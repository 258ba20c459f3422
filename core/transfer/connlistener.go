package transfer

import (
	"context"
	"net"
	"os"
	"sync"
	"time"
)

// ConnListener is a net.Listener whose connections are handed to it, for
// ReceiverConfig.Listener: a front end that takes Ferry sessions over
// another transport (a browser's WebSocket wrapped as a net.Conn) hands
// each to Hand, and Serve accepts it as it would a TCP connection, under
// the same limits. Serve needs of a Listener what *net.TCPListener has
// and this has too: SetDeadline, with which it ends an Accept and leaves
// the listener open for the next Serve.
type ConnListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{} // closed and replaced when deadline changes
}

// NewConnListener returns a ConnListener whose Addr is addr.
func NewConnListener(addr net.Addr) *ConnListener {
	return &ConnListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{}), changed: make(chan struct{})}
}

// Hand gives c to the next Accept, waiting until one takes it, ctx ends
// (its error is returned) or the listener is closed (net.ErrClosed). A
// connection that was not taken is not closed: it is still the caller's.
func (l *ConnListener) Hand(ctx context.Context, c net.Conn) error {
	select {
	case l.conns <- c:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-l.closed:
		return net.ErrClosed
	}
}

// Accept returns the next connection handed over; after the deadline
// (SetDeadline) it returns os.ErrDeadlineExceeded, after Close
// net.ErrClosed.
func (l *ConnListener) Accept() (net.Conn, error) {
	for {
		if c, err, again := l.acceptOnce(); !again {
			return c, err
		}
	}
}

// acceptOnce waits under the deadline of the moment; again says that
// the deadline changed meanwhile.
func (l *ConnListener) acceptOnce() (c net.Conn, err error, again bool) {
	l.mu.Lock()
	deadline, changed := l.deadline, l.changed
	l.mu.Unlock()
	var expired <-chan time.Time
	if !deadline.IsZero() {
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, os.ErrDeadlineExceeded, false
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case c := <-l.conns:
		return c, nil, false
	case <-l.closed:
		return nil, net.ErrClosed, false
	case <-expired:
		return nil, os.ErrDeadlineExceeded, false
	case <-changed:
		return nil, nil, true
	}
}

// SetDeadline bounds pending and later Accepts; the zero time removes
// the bound.
func (l *ConnListener) SetDeadline(t time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deadline = t
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

// Close ends every Accept and Hand, now and later.
func (l *ConnListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr is the address given to NewConnListener.
func (l *ConnListener) Addr() net.Addr { return l.addr }
