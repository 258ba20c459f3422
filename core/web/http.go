package web

import (
	"bufio"
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ferry-project/ferry/core/internal/netsrc"
)

// Bounds on the HTTP side of a shared port.
//
// One host (one IPv4 or IPv6 address) holds at most maxHTTPPerHost HTTP
// connections and one IPv6 /64 at most maxHTTPPerNet; past its cap, the
// host's (or the /64's) own oldest connection is closed to make room,
// even mid-response: a host can only push out itself, so a flood of
// downloads it never reads costs others nothing. A phone loads the page
// over a handful of connections (browsers open at most 6 per host).
//
// When the total is reached, only a connection that is not doing
// anything for anyone is closed to make room, the oldest first: an HTTP
// connection still waiting for its request (a stalled one) or idle
// between two, and a WebSocket whose peer has not proven the code (or
// its key) yet. When every HTTP connection is being served, the oldest
// of the host holding the most gives way to a host holding fewer. A
// WebSocket that proved the code is never closed for another; when only
// such WebSockets are left, the newcomer is refused.
//
// A connection writes for at most connWriteLife in all, however many
// requests it sends: the http.Server renews writeTimeout with every
// request, and a reader that never reads could otherwise keep a
// connection busy by asking again (see fairConn).
const (
	maxHTTPConns   = 32               // HTTP connections at once
	maxHTTPPerHost = 8                // per IPv4 or IPv6 address
	maxHTTPPerNet  = 16               // per IPv6 /64 (core/internal/netsrc)
	maxWebSockets  = 16               // open WebSockets in all
	maxWSPerHost   = 4                // per IPv4 or IPv6 address
	maxWSPerNet    = 8                // per IPv6 /64
	maxHeaderBytes = 8 << 10          // a page request is a few hundred bytes
	headerTimeout  = 10 * time.Second // request line and headers
	writeTimeout   = 60 * time.Second // ferry.wasm (~2 MiB gzipped) over a slow Wi-Fi
	connWriteLife  = 2 * writeTimeout // all of one connection's responses
	idleTimeout    = 30 * time.Second
)

// httpServer is the HTTP side of a Mux: an http.Server fed with the
// connections the Mux sniffed as HTTP.
type httpServer struct {
	srv      *Server
	hs       *http.Server
	ln       *chanListener
	handover func(net.Conn) bool
	closed   <-chan struct{}
	done     chan struct{}

	mu    sync.Mutex
	conns list.List              // of *httpConn, not hijacked, oldest first
	byC   map[net.Conn]*httpConn // by the *fairConn the http.Server has
	ws    list.List              // of *wsConn, oldest first
}

// httpConn is one HTTP connection the server has; serving is set while a
// handler runs for it.
type httpConn struct {
	c       *fairConn
	src     netsrc.Source
	el      *list.Element
	serving bool
}

type connKey struct{}

func newHTTPServer(srv *Server, handover func(net.Conn) bool, closed <-chan struct{}) *httpServer {
	h := &httpServer{srv: srv, handover: handover, closed: closed, done: make(chan struct{}),
		ln: newChanListener(), byC: map[net.Conn]*httpConn{}}
	h.hs = &http.Server{
		Handler:           http.HandlerFunc(h.serveHTTP),
		ReadHeaderTimeout: headerTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         h.connState,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		ErrorLog: nil,
	}
	go func() {
		defer close(h.done)
		h.hs.Serve(h.ln)
	}()
	return h
}

// serve hands one sniffed connection to the HTTP server, making room
// for it first (see the limits above); c is refused when there is none.
func (h *httpServer) serve(c net.Conn) {
	fc := newFairConn(c)
	hc := &httpConn{c: fc, src: netsrc.Of(c.RemoteAddr())}
	h.mu.Lock()
	victim, ok := h.victimLocked(hc.src)
	if !ok {
		h.mu.Unlock()
		c.Close()
		return
	}
	if victim != nil {
		h.dropLocked(victim)
		victim.c.Close()
	}
	hc.el = h.conns.PushBack(hc)
	h.byC[fc] = hc
	h.mu.Unlock()
	if !h.ln.put(fc, h.closed) {
		h.mu.Lock()
		h.dropLocked(hc)
		h.mu.Unlock()
		c.Close()
	}
}

// victimLocked picks the connection to close so that one from src fits:
// nil when it fits already, false when it must be refused.
func (h *httpServer) victimLocked(src netsrc.Source) (*httpConn, bool) {
	perHost := map[string]int{}
	var host, nets int
	for e := h.conns.Front(); e != nil; e = e.Next() {
		o := e.Value.(*httpConn)
		perHost[o.src.Host]++
		if o.src.Host == src.Host {
			host++
		}
		if src.Net != "" && o.src.Net == src.Net {
			nets++
		}
	}
	// oldest is the oldest connection in, preferring one not being
	// served when idleFirst.
	oldest := func(in func(*httpConn) bool, idleFirst bool) *httpConn {
		var first *httpConn
		for e := h.conns.Front(); e != nil; e = e.Next() {
			o := e.Value.(*httpConn)
			if !in(o) {
				continue
			}
			if !idleFirst || !o.serving {
				return o
			}
			if first == nil {
				first = o
			}
		}
		return first
	}
	switch {
	case host >= maxHTTPPerHost:
		return oldest(func(o *httpConn) bool { return o.src.Host == src.Host }, true), true
	case src.Net != "" && nets >= maxHTTPPerNet:
		return oldest(func(o *httpConn) bool { return o.src.Net == src.Net }, true), true
	case h.conns.Len() < maxHTTPConns:
		return nil, true
	}
	if v := oldest(func(o *httpConn) bool { return !o.serving }, false); v != nil {
		return v, true
	}
	// Every connection is being served: the host holding the most
	// gives one up, if it holds more than the newcomer's would.
	big, n := "", 0
	for k, c := range perHost {
		if c > n || c == n && k < big {
			big, n = k, c
		}
	}
	if n <= host+1 {
		return nil, false
	}
	return oldest(func(o *httpConn) bool { return o.src.Host == big }, false), true
}

// dropLocked forgets an HTTP connection (closed, evicted or hijacked).
func (h *httpServer) dropLocked(hc *httpConn) {
	if hc.el != nil {
		h.conns.Remove(hc.el)
		hc.el = nil
		delete(h.byC, hc.c)
	}
}

func (h *httpServer) connState(c net.Conn, st http.ConnState) {
	if st != http.StateHijacked && st != http.StateClosed {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if hc := h.byC[c]; hc != nil {
		h.dropLocked(hc)
	}
}

// setServing marks the request's connection as served (or not) while
// its handler runs.
func (h *httpServer) setServing(r *http.Request, on bool) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	h.mu.Lock()
	defer h.mu.Unlock()
	if hc := h.byC[c]; hc != nil {
		hc.serving = on
	}
}

func (h *httpServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h.setServing(r, true)
	defer h.setServing(r, false)
	h.srv.serveHTTP(w, r, h.upgrade)
}

// admitWS makes room for a WebSocket from src: past its address's cap,
// its /64's or the total, the oldest WebSocket in that bucket whose peer
// has not proven itself is closed; false when there is none to close
// (the newcomer is refused).
func (h *httpServer) admitWS(nc *wsConn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	var host, nets int
	for e := h.ws.Front(); e != nil; e = e.Next() {
		o := e.Value.(*wsConn)
		if o.src.Host == nc.src.Host {
			host++
		}
		if nc.src.Net != "" && o.src.Net == nc.src.Net {
			nets++
		}
	}
	var in func(*wsConn) bool
	switch {
	case host >= maxWSPerHost:
		in = func(o *wsConn) bool { return o.src.Host == nc.src.Host }
	case nc.src.Net != "" && nets >= maxWSPerNet:
		in = func(o *wsConn) bool { return o.src.Net == nc.src.Net }
	case h.ws.Len() >= maxWebSockets:
		in = func(*wsConn) bool { return true }
	}
	if in != nil {
		var victim *wsConn
		for e := h.ws.Front(); e != nil; e = e.Next() {
			if o := e.Value.(*wsConn); !o.proven && in(o) {
				victim = o
				break
			}
		}
		if victim == nil {
			return false
		}
		h.ws.Remove(victim.el)
		victim.el = nil
		victim.evict()
	}
	nc.el = h.ws.PushBack(nc)
	return true
}

func (h *httpServer) removeWS(nc *wsConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if nc.el != nil {
		h.ws.Remove(nc.el)
		nc.el = nil
	}
}

// upgrade accepts a WebSocket whose Origin and token Server checked, and
// hands it to the Mux's Accept as a net.Conn of binary messages. The
// handler returns when the connection is closed (by the transfer, or
// when the Mux closes, or to make room for another; see admitWS).
func (h *httpServer) upgrade(w http.ResponseWriter, r *http.Request) {
	nc := &wsConn{h: h, src: netsrc.OfHostPort(r.RemoteAddr)}
	if !h.admitWS(nc) {
		http.Error(w, "ferry: too many connections, try again in a moment", http.StatusServiceUnavailable)
		return
	}
	defer h.removeWS(nc)
	c, err := websocket.Accept(clearDeadlines{w}, r, &websocket.AcceptOptions{
		// Server.checkUpgrade compared Origin with Host already, more
		// strictly than the library (which lets a request without
		// Origin through).
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled, // ciphertext does not compress
	})
	if err != nil {
		return // Accept answered the request
	}
	ctx, cancel := context.WithCancel(context.Background())
	nc.mu.Lock()
	nc.Conn, nc.ws, nc.cancel = websocket.NetConn(ctx, c, websocket.MessageBinary), c, cancel
	evicted := nc.closed
	nc.mu.Unlock()
	if evicted {
		c.CloseNow()
		cancel()
		return
	}
	if !h.handover(nc) {
		return
	}
	select {
	case <-ctx.Done():
	case <-h.closed:
		nc.Close()
	}
}

// close shuts the HTTP server and every WebSocket it upgraded.
func (h *httpServer) close() {
	h.hs.Close()
	h.ln.Close()
	h.mu.Lock()
	var open []*wsConn
	for e := h.ws.Front(); e != nil; e = e.Next() {
		open = append(open, e.Value.(*wsConn))
	}
	h.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
	<-h.done
}

// wsConn is a WebSocket as a net.Conn; closing it ends its handler.
// Proven (called by core/transfer once the peer proved the code or its
// key) keeps it from being closed to make room for another.
type wsConn struct {
	net.Conn // set once the upgrade succeeded
	h        *httpServer
	src      netsrc.Source
	el       *list.Element // in h.ws; h.mu
	proven   bool          // h.mu

	mu     sync.Mutex
	ws     *websocket.Conn
	cancel context.CancelFunc
	closed bool
}

// Proven marks the WebSocket's peer as having proven the code (or its
// pinned key) in the handshake.
func (c *wsConn) Proven() {
	c.h.mu.Lock()
	c.proven = true
	c.h.mu.Unlock()
}

// Close closes the WebSocket with its closing handshake.
func (c *wsConn) Close() error {
	c.mu.Lock()
	if c.closed || c.Conn == nil {
		c.closed = true
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := c.Conn.Close()
	c.cancel()
	return err
}

// evict closes the WebSocket at once, without waiting on its peer (h.mu
// is held): its reads and writes fail and its handler returns.
func (c *wsConn) evict() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if c.ws != nil { // else evicted during its upgrade: upgrade closes it
		c.ws.CloseNow()
		c.cancel()
	}
}

// clearDeadlines clears the deadlines the HTTP server set on a
// connection for its request (WriteTimeout) as the WebSocket library
// hijacks it: from then on the transfer's own timeouts apply, through
// the WebSocket's SetDeadline.
type clearDeadlines struct{ http.ResponseWriter }

func (w clearDeadlines) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		if fc, ok := c.(*fairConn); ok {
			fc.release()
		}
		c.SetDeadline(time.Time{})
	}
	return c, brw, err
}

// fairConn is an HTTP connection whose write deadline never passes
// writeBy, fixed when the connection arrives: the http.Server moves the
// deadline with every request it reads, and a reader that never reads
// but keeps asking (small responses fit in the socket's buffers) would
// renew it for ever. A WebSocket's connection is released from it once
// hijacked: the transfer's own timeouts apply then.
type fairConn struct {
	net.Conn
	mu       sync.Mutex
	writeBy  time.Time // zero once released
	released bool
}

func newFairConn(c net.Conn) *fairConn {
	return &fairConn{Conn: c, writeBy: time.Now().Add(connWriteLife)}
}

func (c *fairConn) release() {
	c.mu.Lock()
	c.released = true
	c.mu.Unlock()
}

// clamp is t, or writeBy if t is later (the zero time, no deadline, is
// the latest of all).
func (c *fairConn) clamp(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released || (!t.IsZero() && t.Before(c.writeBy)) {
		return t
	}
	return c.writeBy
}

func (c *fairConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(c.clamp(t))
}

func (c *fairConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(c.clamp(t))
}

// CloseWrite half-closes the TCP connection beneath, as prefixConn does.
func (c *fairConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// chanListener is the listener the HTTP server accepts from: the Mux puts
// in the connections it sniffed as HTTP.
type chanListener struct {
	ch     chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newChanListener() *chanListener {
	return &chanListener{ch: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *chanListener) put(c net.Conn, muxClosed <-chan struct{}) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.closed:
	case <-muxClosed:
	}
	return false
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return wsAddr{} }

type wsAddr struct{}

func (wsAddr) Network() string { return "tcp" }
func (wsAddr) String() string  { return "ferry-page" }
