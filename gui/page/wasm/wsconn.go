//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall/js"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/deadline"
)

// highWater is how many bytes a Write lets the browser buffer before it
// waits for them to drain.
const highWater = 1 << 20

var errClosed = errors.New("websocket closed")

// wsConn is a browser WebSocket of binary messages as a net.Conn. The
// JavaScript callbacks only queue and signal; Read and Write run on the
// transfer's goroutines and wait on channels, never on the event loop.
type wsConn struct {
	ws    js.Value
	funcs []js.Func
	url   string

	mu       sync.Mutex
	queue    [][]byte
	cur      []byte
	curMsg   []byte        // the whole message cur is the rest of
	free     [][]byte      // messages read to their end, for the next ones
	signal   chan struct{} // one token: the queue or the state changed
	closed   bool
	closeErr error // io.EOF after a clean close

	rdl, wdl *deadline.Deadline
	buf      js.Value // a reusable Uint8Array for sends
	bufLen   int
	once     sync.Once
}

func dialWS(ctx context.Context, url string) (*wsConn, error) {
	ctor := js.Global().Get("WebSocket")
	if ctor.IsUndefined() {
		return nil, errors.New("this browser has no WebSocket")
	}
	c := &wsConn{url: url, signal: make(chan struct{}, 1), rdl: deadline.New(), wdl: deadline.New()}
	var ws js.Value
	err := catch(func() { ws = ctor.New(url) })
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", url, err)
	}
	ws.Set("binaryType", "arraybuffer")
	c.ws = ws
	opened := make(chan struct{})
	var openOnce sync.Once
	c.on("open", func(js.Value) { openOnce.Do(func() { close(opened) }) })
	c.on("message", func(ev js.Value) {
		data := ev.Get("data")
		if data.Type() == js.TypeString {
			c.fail(errors.New("websocket: a text message where only binary ones are sent"))
			return
		}
		start := time.Now()
		u8 := js.Global().Get("Uint8Array").New(data)
		b := c.take(u8.Get("length").Int())
		js.CopyBytesToGo(b, u8)
		// The copy runs while the transfer waits, nearly always in a
		// socket read.
		crossed(app.StageSocketRead, start, len(b))
		c.mu.Lock()
		c.queue = append(c.queue, b)
		c.mu.Unlock()
		c.wake()
		passed(len(b))
	})
	c.on("close", func(ev js.Value) {
		code := ev.Get("code").Int()
		if code == 1000 || code == 1001 {
			c.fail(io.EOF)
		} else {
			c.fail(fmt.Errorf("websocket closed (code %d%s)", code, reason(ev)))
		}
	})
	c.on("error", func(js.Value) { c.fail(errors.New("websocket error")) })
	select {
	case <-opened:
		return c, nil
	case <-c.signal: // closed before it opened
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.Close()
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("connecting to %s: %w", url, c.writeErr())
}

// keepFree is how many messages' buffers a wsConn keeps for reuse: the
// desktop's messages are its writes, about 256 KiB each (core/secure
// batches records), and a few of them cover what is in flight, so a
// receive makes no garbage per message for the page's one-thread
// collector to sweep.
const keepFree = 4

// take returns a buffer of n bytes for a message: a freed one that is
// large enough, or a new one.
func (c *wsConn) take(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.free) - 1; i >= 0; i-- {
		if b := c.free[i]; cap(b) >= n {
			c.free[i] = c.free[len(c.free)-1]
			c.free[len(c.free)-1] = nil
			c.free = c.free[:len(c.free)-1]
			return b[:n]
		}
	}
	return make([]byte, n)
}

func reason(ev js.Value) string {
	if r := ev.Get("reason").String(); r != "" {
		return ": " + r
	}
	return ""
}

func (c *wsConn) on(name string, f func(js.Value)) {
	fn := js.FuncOf(func(this js.Value, args []js.Value) any {
		f(args[0])
		return nil
	})
	c.funcs = append(c.funcs, fn)
	c.ws.Call("addEventListener", name, fn)
}

func (c *wsConn) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

func (c *wsConn) fail(err error) {
	c.mu.Lock()
	if !c.closed {
		c.closed, c.closeErr = true, err
	}
	c.mu.Unlock()
	c.wake()
}

func (c *wsConn) Read(p []byte) (int, error) {
	for {
		c.mu.Lock()
		if len(c.cur) == 0 && len(c.queue) > 0 {
			c.cur, c.queue[0] = c.queue[0], nil
			c.curMsg = c.cur
			c.queue = c.queue[1:]
		}
		if len(c.cur) > 0 {
			n := copy(p, c.cur)
			c.cur = c.cur[n:]
			if len(c.cur) == 0 {
				// Read to its end: its bytes are the caller's now.
				if len(c.free) < keepFree {
					c.free = append(c.free, c.curMsg)
				}
				c.curMsg = nil
			}
			more := len(c.cur) > 0 || len(c.queue) > 0
			c.mu.Unlock()
			if more {
				c.wake()
			}
			return n, nil
		}
		closed, err := c.closed, c.closeErr
		c.mu.Unlock()
		if closed {
			c.wake() // let any other waiter see it too
			return 0, err
		}
		select {
		case <-c.signal:
		case <-c.rdl.Done():
			return 0, os.ErrDeadlineExceeded
		}
	}
}

func (c *wsConn) Write(p []byte) (int, error) {
	for {
		if err := c.writeErr(); err != nil {
			return 0, err
		}
		if c.ws.Get("bufferedAmount").Int() <= highWater {
			break
		}
		select {
		case <-time.After(2 * time.Millisecond):
		case <-c.wdl.Done():
			return 0, os.ErrDeadlineExceeded
		}
	}
	select {
	case <-c.wdl.Done():
		return 0, os.ErrDeadlineExceeded
	default:
	}
	start := time.Now()
	if c.bufLen < len(p) {
		c.bufLen = max(len(p), 64<<10)
		c.buf = js.Global().Get("Uint8Array").New(c.bufLen)
	}
	js.CopyBytesToJS(c.buf, p)
	msg := c.buf.Call("subarray", 0, len(p))
	crossed(app.StageSocketWrite, start, len(p))
	// send copies the bytes into the browser's buffer at once, so the
	// same array serves the next Write.
	if err := catch(func() { c.ws.Call("send", msg) }); err != nil {
		c.fail(err)
		return 0, err
	}
	return len(p), nil
}

// writeErr is why nothing more can be written, or the socket did not
// open (errClosed after a clean close); nil while it is open.
func (c *wsConn) writeErr() error {
	c.mu.Lock()
	closed, err := c.closed, c.closeErr
	c.mu.Unlock()
	switch {
	case !closed:
		return nil
	case err == io.EOF:
		return errClosed
	}
	return err
}

func (c *wsConn) Close() error {
	c.once.Do(func() {
		c.fail(errClosed)
		catch(func() { c.ws.Call("close", 1000) })
		for _, f := range c.funcs {
			// The listeners stay attached to a closed socket, which is
			// dropped with them; releasing lets Go free the closures.
			f.Release()
		}
	})
	return nil
}

// UseCrossings is app.CrossingConn: the transfer's crossings, which
// this conn, the picked files and the sink record into.
func (c *wsConn) UseCrossings(x *app.Crossings) { crossings.Store(x) }

type wsAddr string

func (a wsAddr) Network() string { return "websocket" }
func (a wsAddr) String() string  { return string(a) }

func (c *wsConn) LocalAddr() net.Addr  { return wsAddr("browser") }
func (c *wsConn) RemoteAddr() net.Addr { return wsAddr(c.url) }

func (c *wsConn) SetDeadline(t time.Time) error {
	c.rdl.Set(t)
	c.wdl.Set(t)
	return nil
}
func (c *wsConn) SetReadDeadline(t time.Time) error  { c.rdl.Set(t); return nil }
func (c *wsConn) SetWriteDeadline(t time.Time) error { c.wdl.Set(t); return nil }
