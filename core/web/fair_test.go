package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

// loopFrom dials from the loopback address 127.0.0.x: Linux routes all of
// 127/8 to lo, so a test can play several hosts without leaving the
// machine.
func loopFrom(x int) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(x))}}
}

// wsFrom opens the page's WebSocket from 127.0.0.x; a refusal is the
// error, with the status.
func wsFrom(ctx context.Context, addr string, x int) (net.Conn, error) {
	hc := &http.Client{Transport: &http.Transport{DialContext: loopFrom(x).DialContext}}
	c, resp, err := websocket.Dial(ctx, "ws://"+addr+"/ws?t="+testToken,
		&websocket.DialOptions{HTTPClient: hc, HTTPHeader: http.Header{"Origin": {"http://" + addr}}})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("status %d: %w", resp.StatusCode, err)
		}
		return nil, err
	}
	return websocket.NetConn(context.Background(), c, websocket.MessageBinary), nil
}

// TestPageServerFairUnderFlood: 32 stalled HTTP connections and 16
// stalled WebSockets from four hosts, then 16 more WebSockets once an
// honest sender proved its code, while a phone downloads ferry.wasm and
// the honest sender's transfer waits for the person to accept. Before,
// the 32nd stalled connection closed the download (the oldest
// connection, whatever it did) and the honest WebSocket was refused
// (503, 16 open); now only stalled connections and WebSockets that have
// not proven the code make room, the oldest first.
func TestPageServerFairUnderFlood(t *testing.T) {
	files := pageFiles()
	wasm := make([]byte, 8<<20) // incompressible, and asked for without gzip
	rand.Read(wasm)
	files["ferry.wasm"] = &fstest.MapFile{Data: wasm}
	m, addr := startMux(t, Config{Name: "desk", Files: files})

	const code = "975312"
	dest := t.TempDir()
	offered := make(chan struct{}, 1)
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Code: code, Listener: m, Identity: testid.New(t),
		Name: "desk", Policy: receive.Ask, Timeout: 30 * time.Second, OnEvent: func(ev event.Event) {
			if _, ok := ev.(event.Offer); ok {
				offered <- struct{}{}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		_, err := r.Serve(context.Background())
		served <- err
	}()
	defer func() { r.Close(); <-served }()

	// The phone's download: the response's first 64 KiB read, the rest
	// left in flight (the server's write blocks on full buffers).
	dl, err := loopFrom(10).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	fmt.Fprintf(dl, "GET /ferry.wasm HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	br := bufio.NewReader(dl)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("download: %v %v", resp, err)
	}
	got := sha256.New()
	if _, err := io.CopyN(got, resp.Body, 64<<10); err != nil {
		t.Fatal(err)
	}

	// 32 one-byte HTTP connections from four hosts.
	for i := range maxHTTPConns {
		c, err := loopFrom(2+i%4).Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("G"))
	}
	// 16 WebSockets from the same four hosts that never begin a handshake.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range maxWebSockets {
		c, err := wsFrom(ctx, addr, 2+i%4)
		if err != nil {
			t.Fatalf("stalled WebSocket %d: %v", i, err)
		}
		defer c.Close()
	}

	// The honest sender, from a fifth host.
	parent, name := tree(t)
	sent := make(chan error, 1)
	go func() {
		_, err := send.Send(ctx, send.SendConfig{Addrs: []string{addr}, Code: code, Identity: testid.New(t), Name: "phone",
			Items: []transfer.Item{{Path: filepath.Join(parent, name)}}, Timeout: 30 * time.Second,
			Dialer: func(ctx context.Context, _ string) (net.Conn, error) { return wsFrom(ctx, addr, 9) }})
		sent <- err
	}()
	select {
	case <-offered:
	case err := <-sent:
		t.Fatalf("honest sender behind 16 stalled WebSockets: %v", err)
	case <-ctx.Done():
		t.Fatal("the honest sender's offer never came")
	}
	// It proved the code: 16 more stalled WebSockets make room among
	// the others (or are refused), never by closing it.
	refused := 0
	for i := range maxWebSockets {
		c, err := wsFrom(ctx, addr, 5+i%4)
		if err != nil {
			if !strings.Contains(err.Error(), "status 503") {
				t.Fatalf("WebSocket after the honest one: %v", err)
			}
			refused++
			continue
		}
		defer c.Close()
	}
	t.Logf("WebSockets refused once the honest sender proved its code: %d of %d", refused, maxWebSockets)
	r.Accept()
	if err := <-sent; err != nil {
		t.Fatalf("honest sender: %v", err)
	}
	sameTree(t, filepath.Join(parent, name), filepath.Join(dest, name))

	// The download is whole.
	dl.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, err := io.Copy(got, resp.Body)
	if err != nil || n+64<<10 != int64(len(wasm)) {
		t.Fatalf("ferry.wasm download cut at %d of %d bytes: %v", n+64<<10, len(wasm), err)
	}
	want := sha256.Sum256(wasm)
	if !bytes.Equal(got.Sum(nil), want[:]) {
		t.Fatal("ferry.wasm arrived damaged")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("download stalled")
	}
}

// unreadDownload asks for ferry.wasm from 127.0.0.x and reads nothing:
// its receive buffer is a few KiB, so the server's writes stay blocked
// and its handler keeps running.
func unreadDownload(t *testing.T, addr string, x int) net.Conn {
	t.Helper()
	return unreadDownloadBy(t, loopFrom(x), addr)
}

// unreadDownloadBy is unreadDownload from d's local address.
func unreadDownloadBy(t *testing.T, d *net.Dialer, addr string) net.Conn {
	t.Helper()
	d.Control = func(_, _ string, rc syscall.RawConn) error {
		var serr error
		rc.Control(func(fd uintptr) { serr = smallReceiveBuffer(fd) })
		return serr
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /ferry.wasm HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	return c
}

// loadPage loads the page as a phone does from 127.0.0.x (index.html,
// its script and ferry.wasm, whole), within limit.
func loadPage(addr string, x int, size int, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{DialContext: loopFrom(x).DialContext, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	for _, p := range []string{"/", "/page.js", "/ferry.wasm"} {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+p, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			return fmt.Errorf("%s: status %d, %d bytes: %v", p, resp.StatusCode, n, err)
		}
		if p == "/ferry.wasm" && n != int64(size) {
			return fmt.Errorf("%s: %d of %d bytes", p, n, size)
		}
	}
	return nil
}

// TestPageServerFairToPhones: one host holds 32 downloads of ferry.wasm
// it never reads. Before, each held one of the 32 HTTP slots for as
// long as its write could block (60 s, and again on a new connection),
// so every page load from another host was refused (0 of 5). Now one
// host holds at most maxHTTPPerHost connections, its newest pushing out
// its oldest even mid-response, and a phone on another address loads
// the page and sends.
func TestPageServerFairToPhones(t *testing.T) {
	files := pageFiles()
	wasm := make([]byte, 16<<20) // incompressible, more than loopback buffers hold
	rand.Read(wasm)
	files["ferry.wasm"] = &fstest.MapFile{Data: wasm}
	m, addr := startMux(t, Config{Name: "desk", Files: files})

	for range 32 {
		c := unreadDownload(t, addr, 2)
		defer c.Close()
	}
	// Wait until the server is writing to as many as it lets one host
	// hold, and none is still being sniffed.
	deadline := time.Now().Add(10 * time.Second)
	for servingFrom(m, "127.0.0.2") < maxHTTPPerHost || m.pendingLen() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the server writes to %d downloads from one host, want %d", servingFrom(m, "127.0.0.2"), maxHTTPPerHost)
		}
		time.Sleep(10 * time.Millisecond)
	}

	const loads = 5
	ok := 0
	for i := range loads {
		if err := loadPage(addr, 3, len(wasm), 20*time.Second); err != nil {
			t.Logf("page load %d from another address: %v", i+1, err)
			continue
		}
		ok++
	}
	t.Logf("page loads from another address with 32 unread downloads held: %d of %d", ok, loads)
	if ok != loads {
		t.Fatalf("%d of %d page loads succeeded", ok, loads)
	}

	// And the phone sends, over the page's WebSocket.
	dest, done := receiver(t, m, "246810")
	parent, name := tree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := send.Send(ctx, send.SendConfig{Addrs: []string{addr}, Code: "246810", Identity: testid.New(t), Name: "phone",
		Items: []transfer.Item{{Path: filepath.Join(parent, name)}}, Timeout: 20 * time.Second,
		Dialer: func(ctx context.Context, _ string) (net.Conn, error) { return wsFrom(ctx, addr, 3) }})
	if err != nil {
		t.Fatalf("send from the phone: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("receiver: %v", err)
	}
	sameTree(t, filepath.Join(parent, name), filepath.Join(dest, name))
}

// servingFrom counts the HTTP connections from host whose handler runs.
func servingFrom(m *Mux, host string) int {
	return countHTTP(m, func(hc *httpConn) bool { return hc.serving && hc.src.Host == host })
}

func countHTTP(m *Mux, in func(*httpConn) bool) int {
	h := m.http
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for e := h.conns.Front(); e != nil; e = e.Next() {
		if in(e.Value.(*httpConn)) {
			n++
		}
	}
	return n
}

func (m *Mux) pendingLen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending.Len()
}

// A reader that never reads cannot move a connection's write deadline
// past writeBy by asking again (the http.Server sets a new deadline per
// request); a hijacked WebSocket is released from it.
func TestFairConnWriteDeadlineNotRenewed(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	fc := &fairConn{Conn: a, writeBy: time.Now().Add(50 * time.Millisecond)}
	for range 3 { // three requests, each renewing the deadline by an hour
		fc.SetWriteDeadline(time.Now().Add(time.Hour))
	}
	start := time.Now()
	if _, err := fc.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write to a reader that does not read: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("write failed after %v", d)
	}
	fc.release()
	fc.SetDeadline(time.Time{})
	go io.ReadFull(b, make([]byte, 1))
	if _, err := fc.Write([]byte("x")); err != nil {
		t.Fatalf("released connection: %v", err)
	}
}
