package web

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"net/http"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/ferry-project/ferry/core/testkit/netns"
)

// wsFromIP opens the page's WebSocket to addr from the source address ip.
func wsFromIP(ctx context.Context, addr, ip string) (*websocket.Conn, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws?t="+testToken,
		&websocket.DialOptions{HTTPClient: hc, HTTPHeader: http.Header{"Origin": {"http://" + addr}}})
	return c, err
}

// closedByServer waits for c to be closed by the server; false if it is
// still open after wait.
func closedByServer(c *websocket.Conn, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, _, err := c.Read(ctx)
	return err != nil && !errors.Is(err, context.DeadlineExceeded)
}

// WebSockets are capped per IPv6 address (maxWSPerHost), and per /64
// (maxWSPerNet) above that: an address over its cap loses its own
// oldest, never a neighbour's; a /64 over its cap loses its oldest.
func TestWebSocketCapsIPv6(t *testing.T) {
	if !netns.Rerun(t, "2001:db8:7:8::1/64", "2001:db8:7:8::a/64", "2001:db8:7:8::b/64", "2001:db8:7:8::c/64") {
		return
	}
	srv, err := NewServer(Config{Name: "desk", Files: pageFiles(), Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "[2001:db8:7:8::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMux(ln, srv)
	defer m.Close()
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	open := func(ip string) *websocket.Conn {
		c, err := wsFromIP(ctx, addr, ip)
		if err != nil {
			t.Fatalf("WebSocket from %s: %v", ip, err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	var a, b []*websocket.Conn
	for range maxWSPerHost {
		b = append(b, open("2001:db8:7:8::b"))
	}
	for range maxWSPerHost + 1 {
		a = append(a, open("2001:db8:7:8::a"))
	}
	if !closedByServer(a[0], 5*time.Second) {
		t.Fatal("::a's oldest WebSocket is still open past its address's cap")
	}
	for i, c := range b {
		if closedByServer(c, 100*time.Millisecond) {
			t.Fatalf("::b's WebSocket %d was closed by ::a's", i)
		}
	}
	// The /64 holds 8 (4 of ::a, 4 of ::b): one from ::c closes the
	// /64's oldest, ::b's first.
	open("2001:db8:7:8::c")
	if !closedByServer(b[0], 5*time.Second) {
		t.Fatal("the /64's oldest WebSocket is still open past its /64's cap")
	}
	for i, c := range a[1:] {
		if closedByServer(c, 100*time.Millisecond) {
			t.Fatalf("::a's WebSocket %d was closed, not the /64's oldest", i+1)
		}
	}
}

// HTTP connections are capped per IPv6 address (maxHTTPPerHost) and per
// /64 (maxHTTPPerNet): downloads nobody reads from one address push out
// that address's oldest, and a /64 over its cap loses its own oldest,
// mid-response both.
func TestHTTPCapsIPv6(t *testing.T) {
	if !netns.Rerun(t, "2001:db8:7:9::1/64", "2001:db8:7:9::a/64", "2001:db8:7:9::b/64", "2001:db8:7:9::c/64") {
		return
	}
	files := pageFiles()
	wasm := make([]byte, 16<<20)
	rand.Read(wasm)
	files["ferry.wasm"] = &fstest.MapFile{Data: wasm}
	srv, err := NewServer(Config{Name: "desk", Files: files, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "[2001:db8:7:9::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMux(ln, srv)
	defer m.Close()
	addr := ln.Addr().String()
	download := func(ip string) *connFrom {
		c := unreadDownloadBy(t, &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}, addr)
		t.Cleanup(func() { c.Close() })
		return &connFrom{c.LocalAddr().String()}
	}
	held := func(c *connFrom) bool {
		return countHTTP(m, func(hc *httpConn) bool { return hc.c.RemoteAddr().String() == c.local }) == 1
	}
	// settled waits until every connection made was sniffed and
	// admitted (or refused), and want holds.
	settled := func(what string, want func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for m.pendingLen() > 0 || !want() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	from := func(host string) func() int {
		return func() int { return countHTTP(m, func(hc *httpConn) bool { return hc.src.Host == host }) }
	}
	// Each download is admitted before the next is made: the server
	// sniffs connections at once, so without the wait the one it admits
	// first (the oldest, which a cap evicts) need not be the one dialled
	// first.
	var a, b []*connFrom
	for i := range maxHTTPPerHost {
		b = append(b, download("2001:db8:7:9::b"))
		settled("::b's download served", func() bool { return servingFrom(m, "2001:db8:7:9::b") == i+1 })
	}
	for i := range maxHTTPPerHost {
		a = append(a, download("2001:db8:7:9::a"))
		settled("::a's download served", func() bool { return servingFrom(m, "2001:db8:7:9::a") == i+1 })
	}
	// One more from ::a: its oldest goes. The count alone cannot say
	// the ninth was seen (eight are served before it comes too), so the
	// wait is for the eviction itself, and fails if it never comes.
	a = append(a, download("2001:db8:7:9::a"))
	settled("::a's oldest download closed past its address's cap", func() bool {
		return !held(a[0]) && servingFrom(m, "2001:db8:7:9::a") == maxHTTPPerHost
	})
	if n := from("2001:db8:7:9::b")(); n != maxHTTPPerHost {
		t.Fatalf("::b holds %d connections after ::a's flood, want %d", n, maxHTTPPerHost)
	}
	// The /64 holds 16 (8 of ::a, 8 of ::b): one from ::c closes the
	// /64's oldest, ::b's first, though it is being served.
	download("2001:db8:7:9::c")
	settled("::c admitted", func() bool { return from("2001:db8:7:9::c")() == 1 })
	if held(b[0]) {
		t.Fatal("the /64's oldest download is still held past its /64's cap")
	}
	for i, c := range a[1:] {
		if !held(c) {
			t.Fatalf("::a's download %d was closed, not the /64's oldest", i+1)
		}
	}
}

// connFrom names a client's connection by its local address, which is
// the server's RemoteAddr for it.
type connFrom struct{ local string }
