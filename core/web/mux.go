package web

import (
	"container/list"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/deadline"
)

// Limits on the port a Mux shares. A connection is "pending" from
// accept until its first byte says what it is and, for a Ferry
// connection, until the receiver's accept loop takes it; core/transfer
// then applies its own limits (8 per source, 64 in all, mid-handshake).
const (
	// sniffTimeout: a Ferry sender writes its preamble, and a browser
	// its request line, as soon as they connect.
	sniffTimeout = 10 * time.Second
	// maxPending bounds connections accepted and not yet handed over;
	// beyond it the oldest is closed, so stalled connections cannot lock
	// an honest one out (core/transfer's rule for handshakes).
	maxPending = 64
	// handoverTimeout bounds how long a Ferry connection waits for the
	// receiver to Accept it (between two transfers, say).
	handoverTimeout = 30 * time.Second
)

// Mux is a net.Listener that shares one TCP port between Ferry and the
// browser page. It accepts from the port it wraps and reads each
// connection's first byte: 'F' begins Ferry's preamble ("FERRY"), which
// no HTTP request line does, so the connection is a Ferry sender and is
// returned by Accept with that byte put back; anything else goes to the
// HTTP server, which serves the page and turns each WebSocket upgrade
// that passes its checks (see Server) into a net.Conn that Accept
// returns too. A Receiver given a Mux as its listener therefore serves
// ferry binaries and browser pages alike, under the same limits, guess
// budget and busy refusals.
//
// Accept honours SetDeadline as a TCP listener does (core/transfer
// expires it to end its accept loop); Close closes the port, the HTTP
// server and every WebSocket connection.
type Mux struct {
	ln   net.Listener
	srv  *Server
	http *httpServer

	conns  chan net.Conn // Ferry connections for Accept
	closed chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
	dl     *deadline.Deadline

	mu      sync.Mutex
	pending list.List // of net.Conn, oldest first
}

// NewMux starts sharing ln between Ferry and srv's page. The Mux owns ln
// from then on.
func NewMux(ln net.Listener, srv *Server) *Mux {
	m := &Mux{ln: ln, srv: srv, conns: make(chan net.Conn), closed: make(chan struct{}), dl: deadline.New()}
	m.http = newHTTPServer(srv, m.handover, m.closed)
	m.wg.Add(1)
	go m.loop()
	return m
}

// Server returns the page server behind the Mux.
func (m *Mux) Server() *Server { return m.srv }

// Addr is the shared port's address.
func (m *Mux) Addr() net.Addr { return m.ln.Addr() }

// Port is the shared port's number, which the page's links name; 0 for
// a listener that is not TCP.
func (m *Mux) Port() int {
	if a, ok := m.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Accept returns the next Ferry connection: a TCP connection that began
// with Ferry's preamble, or a browser page's WebSocket.
func (m *Mux) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case <-m.closed:
		return nil, net.ErrClosed
	case <-m.dl.Done():
		return nil, os.ErrDeadlineExceeded
	}
}

// SetDeadline makes Accept fail with os.ErrDeadlineExceeded (a timeout)
// at t; the zero time removes the deadline.
func (m *Mux) SetDeadline(t time.Time) error {
	m.dl.Set(t)
	return nil
}

// Close stops accepting, closes the port, every pending connection, the
// HTTP server and every WebSocket, and waits for the Mux's goroutines.
func (m *Mux) Close() error {
	var err error
	m.once.Do(func() {
		close(m.closed)
		err = m.ln.Close()
		m.mu.Lock()
		for e := m.pending.Front(); e != nil; e = e.Next() {
			e.Value.(net.Conn).Close()
		}
		m.mu.Unlock()
		m.http.close()
		m.wg.Wait()
	})
	return err
}

func (m *Mux) loop() {
	defer m.wg.Done()
	for {
		c, err := m.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			select {
			case <-m.closed:
			default:
				// The port failed: Accept reports it from now on.
				m.Close()
			}
			return
		}
		el := m.track(c)
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.sniff(c, el)
		}()
	}
}

// track counts c as pending, closing the oldest pending connection when
// the limit is reached.
func (m *Mux) track(c net.Conn) *list.Element {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending.Len() >= maxPending {
		old := m.pending.Front()
		old.Value.(net.Conn).Close()
		m.pending.Remove(old)
	}
	return m.pending.PushBack(c)
}

// untrack removes c from the pending list; false if it was evicted.
func (m *Mux) untrack(el *list.Element) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for e := m.pending.Front(); e != nil; e = e.Next() {
		if e == el {
			m.pending.Remove(el)
			return true
		}
	}
	return false
}

func (m *Mux) sniff(c net.Conn, el *list.Element) {
	var b [1]byte
	c.SetReadDeadline(time.Now().Add(sniffTimeout))
	_, err := io.ReadFull(c, b[:])
	c.SetReadDeadline(time.Time{})
	if err != nil {
		m.untrack(el)
		c.Close()
		return
	}
	pc := &prefixConn{Conn: c, first: b[0], has: true}
	if b[0] != 'F' {
		if m.untrack(el) {
			m.http.serve(pc)
		}
		return
	}
	if m.srv.cfg.ToBrowser {
		m.untrack(el)
		c.Close()
		return
	}
	m.handover(pc)
	m.untrack(el)
}

// handover gives a Ferry connection to Accept, or closes it when nobody
// takes it in time or the Mux closes.
func (m *Mux) handover(c net.Conn) bool {
	t := time.NewTimer(handoverTimeout)
	defer t.Stop()
	select {
	case m.conns <- c:
		return true
	case <-t.C:
	case <-m.closed:
	}
	c.Close()
	return false
}

// prefixConn puts back the byte the Mux read to tell Ferry from HTTP.
type prefixConn struct {
	net.Conn
	first byte
	has   bool
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if p.has && len(b) > 0 {
		b[0] = p.first
		p.has = false
		return 1, nil
	}
	return p.Conn.Read(b)
}

// CloseWrite half-closes a TCP connection (core/secure uses it to send
// FIN after its end of stream).
func (p *prefixConn) CloseWrite() error {
	if cw, ok := p.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
