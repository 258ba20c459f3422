package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
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
