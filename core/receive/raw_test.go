package receive

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/wire"
)

// rawPeer speaks the wire format directly over a real secure.Conn, so
// that tests can send what the real sender never would.
type rawPeer struct {
	t   *testing.T
	c   *secure.Conn
	hdr [wire.HeaderLen]byte
}

// dialRaw connects to p's receiver as a sender.
func dialRaw(t *testing.T, ctx context.Context, p *pair) *rawPeer {
	t.Helper()
	nc, err := net.Dial("tcp", p.send.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := secure.Client(ctx, nc, secure.Config{Identity: p.send.Identity, Code: p.send.Code})
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawPeer{t: t, c: c}
}

// send writes one message and flushes (when it can: the receiver may
// already have hung up, which is the point of some tests).
func (r *rawPeer) send(typ wire.Type, body []byte) {
	r.c.Write(wire.Frame(typ, body))
	r.c.Flush()
}

// sendHeader writes a header claiming n bytes, with no body.
func (r *rawPeer) sendHeader(typ wire.Type, n int) {
	var b [wire.HeaderLen]byte
	wire.PutHeader(b[:], typ, n)
	r.c.Write(b[:])
	r.c.Flush()
}

// recv returns the next message other than keepalive.
func (r *rawPeer) recv() (wire.Type, []byte, error) {
	for {
		r.c.NetConn().SetReadDeadline(time.Now().Add(10 * time.Second))
		t, n, err := wire.ReadHeader(r.c, &r.hdr)
		if err != nil {
			return 0, nil, err
		}
		if t == wire.MsgKeepalive {
			continue
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r.c, b); err != nil {
			return 0, nil, err
		}
		return t, b, nil
	}
}

// expect reads the next message and fails unless it has type want.
func (r *rawPeer) expect(want wire.Type) []byte {
	r.t.Helper()
	t, b, err := r.recv()
	if err != nil {
		r.t.Fatalf("waiting for %v: %v", want, err)
	}
	if t != want {
		if t == wire.MsgAbort {
			m, _ := wire.DecodeAbort(b)
			r.t.Fatalf("waiting for %v: got abort %d %q", want, m.Code, m.Reason)
		}
		r.t.Fatalf("waiting for %v: got %v", want, t)
	}
	return b
}

// expectAbort reads until an abort and returns it, then hangs up as the
// real sender does (the receiver waits for that, up to a short grace,
// before it closes).
func (r *rawPeer) expectAbort() wire.Abort {
	r.t.Helper()
	for {
		t, b, err := r.recv()
		if err != nil {
			r.t.Fatalf("waiting for abort: %v", err)
		}
		if t == wire.MsgAbort {
			r.c.Close()
			m, err := wire.DecodeAbort(b)
			if err != nil {
				r.t.Fatal(err)
			}
			return m
		}
	}
}

// serveErr waits for the receiver's outcome.
func (p *pair) serveErr(t *testing.T) error {
	t.Helper()
	select {
	case res := <-p.served:
		return res.err
	case <-time.After(30 * time.Second):
		t.Fatal("receiver did not finish")
		return nil
	}
}

// rawServer accepts one connection as a receiver that completes the
// handshake and then does whatever script does.
func rawServer(t *testing.T, ctx context.Context, code string, script func(c *secure.Conn)) string {
	t.Helper()
	_, rid := ids(t)
	return acceptOne(t, func(nc net.Conn) {
		c, err := secure.Server(ctx, nc, secure.Config{Identity: rid, Code: code})
		if err != nil {
			return
		}
		script(c)
	})
}

// acceptOne listens on loopback, hands the first connection to handle on
// a goroutine the test's cleanup waits for, closes it after, and returns
// the address.
func acceptOne(t *testing.T, handle func(nc net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		handle(nc)
	}()
	return ln.Addr().String()
}

var errScript = errors.New("script failed")
