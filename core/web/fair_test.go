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
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
	"github.com/ferry-project/ferry/core/app/event"
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
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{Dir: dest, Code: code, Listener: m, Identity: testid.New(t),
		Name: "desk", Policy: transfer.Ask, Timeout: 30 * time.Second, OnEvent: func(ev event.Event) {
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
		_, err := transfer.Send(ctx, transfer.SendConfig{Addrs: []string{addr}, Code: code, Identity: testid.New(t), Name: "phone",
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
