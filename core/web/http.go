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
)

// Bounds on the HTTP side of a shared port.
const (
	maxHTTPConns   = 32               // page downloads at once; the oldest idle one is closed beyond
	maxWebSockets  = 16               // open WebSockets; more are refused (503)
	maxHeaderBytes = 8 << 10          // a page request is a few hundred bytes
	headerTimeout  = 10 * time.Second // request line and headers
	writeTimeout   = 60 * time.Second // ferry.wasm (~2 MiB gzipped) over a slow Wi-Fi
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
	conns list.List // of net.Conn, not hijacked, oldest first
	byC   map[net.Conn]*list.Element
	ws    map[net.Conn]struct{}
}

func newHTTPServer(srv *Server, handover func(net.Conn) bool, closed <-chan struct{}) *httpServer {
	h := &httpServer{srv: srv, handover: handover, closed: closed, done: make(chan struct{}),
		ln: newChanListener(), byC: map[net.Conn]*list.Element{}, ws: map[net.Conn]struct{}{}}
	h.hs = &http.Server{
		Handler:           http.HandlerFunc(h.serveHTTP),
		ReadHeaderTimeout: headerTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         h.connState,
		ErrorLog:          nil,
	}
	go func() {
		defer close(h.done)
		h.hs.Serve(h.ln)
	}()
	return h
}

// serve hands one sniffed connection to the HTTP server, closing the
// oldest connection not in a request when the limit is reached.
func (h *httpServer) serve(c net.Conn) {
	h.mu.Lock()
	if h.conns.Len() >= maxHTTPConns {
		h.conns.Front().Value.(net.Conn).Close()
	}
	h.mu.Unlock()
	if !h.ln.put(c, h.closed) {
		c.Close()
	}
}

func (h *httpServer) connState(c net.Conn, st http.ConnState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch st {
	case http.StateNew:
		h.byC[c] = h.conns.PushBack(c)
	case http.StateActive:
		// In a request: not a candidate for closing; back of the list.
		if el := h.byC[c]; el != nil {
			h.conns.MoveToBack(el)
		}
	case http.StateHijacked, http.StateClosed:
		if el := h.byC[c]; el != nil {
			h.conns.Remove(el)
			delete(h.byC, c)
		}
	}
}

func (h *httpServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h.srv.serveHTTP(w, r, h.upgrade)
}

// upgrade accepts a WebSocket whose Origin and token Server checked, and
// hands it to the Mux's Accept as a net.Conn of binary messages. The
// handler returns when the connection is closed (by the transfer, or
// when the Mux closes).
func (h *httpServer) upgrade(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	full := len(h.ws) >= maxWebSockets
	h.mu.Unlock()
	if full {
		http.Error(w, "ferry: too many connections, try again in a moment", http.StatusServiceUnavailable)
		return
	}
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
	nc := &wsConn{Conn: websocket.NetConn(ctx, c, websocket.MessageBinary), cancel: cancel}
	h.mu.Lock()
	h.ws[nc] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.ws, nc)
		h.mu.Unlock()
	}()
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
	for c := range h.ws {
		c.Close()
	}
	h.mu.Unlock()
	<-h.done
}

// wsConn is a WebSocket as a net.Conn; closing it ends its handler.
type wsConn struct {
	net.Conn
	cancel context.CancelFunc
	once   sync.Once
}

func (c *wsConn) Close() error {
	var err error
	c.once.Do(func() {
		err = c.Conn.Close()
		c.cancel()
	})
	return err
}

// clearDeadlines clears the deadlines the HTTP server set on a
// connection for its request (WriteTimeout) as the WebSocket library
// hijacks it: from then on the transfer's own timeouts apply, through
// the WebSocket's SetDeadline.
type clearDeadlines struct{ http.ResponseWriter }

func (w clearDeadlines) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		c.SetDeadline(time.Time{})
	}
	return c, brw, err
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
