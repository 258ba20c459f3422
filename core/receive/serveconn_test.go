package receive

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// newConnReceiver is a receiver that binds nothing (NoListen), as a
// browser page's is.
func newConnReceiver(t *testing.T, cfg ReceiverConfig) (*Receiver, *recorder) {
	t.Helper()
	_, rid := ids(t)
	rev := &recorder{}
	cfg.Identity, cfg.NoListen, cfg.OnEvent, cfg.Name = rid, true, rev.on, "page"
	if cfg.Sink == nil && cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	r, err := NewReceiver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, rev
}

// serveConn runs r.ServeConn(nc) in the background.
func serveConn(ctx context.Context, r *Receiver, nc net.Conn) chan serveResult {
	done := make(chan serveResult, 1)
	go func() {
		sum, err := r.ServeConn(ctx, nc)
		done <- serveResult{sum, err}
	}()
	return done
}

func connDialer(nc net.Conn) func(context.Context, string) (net.Conn, error) {
	return func(context.Context, string) (net.Conn, error) { return nc, nil }
}

// TestServeConnPipe: a receiver with no listener serves one session on
// a net.Pipe into a Sink, as a page does on its WebSocket.
func TestServeConnPipe(t *testing.T) {
	sink := newMemSink()
	r, _ := newConnReceiver(t, ReceiverConfig{Sink: sink, Policy: AcceptAll})
	if r.Port() != 0 {
		t.Errorf("a NoListen receiver has port %d", r.Port())
	}
	if _, err := r.Serve(t.Context()); err == nil {
		t.Error("Serve without a listener did not fail")
	}
	a, b := net.Pipe()
	done := serveConn(t.Context(), r, a)
	sid, _ := ids(t)
	data := pattern(2*transfer.MaxChunk+9, 4)
	src := filepath.Join(t.TempDir(), "f.bin")
	writeFile(t, src, data)
	_, serr := send.Send(t.Context(), send.SendConfig{Addrs: []string{"page"}, Code: r.Code(), Identity: sid, Name: "desk",
		Items: []event.Item{{Path: src}}, Dialer: connDialer(b)})
	res := <-done
	if serr != nil || res.err != nil {
		t.Fatalf("send: %v; serve: %v", serr, res.err)
	}
	if _, committed, _, _ := sink.snapshot(); string(committed["f.bin"]) != string(data) {
		t.Error("f.bin did not arrive whole")
	}
}

// TestServeConnDesktopSendsToPage: the page dials the desktop (over real
// TCP) and receives on its own connection; the desktop sends on the
// connection it accepted, as the handshake's initiator, through
// SendConfig.Dialer.
func TestServeConnDesktopSendsToPage(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dest := t.TempDir()
	page, _ := newConnReceiver(t, ReceiverConfig{Dir: dest, Policy: AcceptAll})
	pc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	dc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	done := serveConn(t.Context(), page, pc)
	src := filepath.Join(t.TempDir(), "tree")
	writeFile(t, filepath.Join(src, "a", "b.txt"), []byte("from the desktop"))
	writeFile(t, filepath.Join(src, "big"), pattern(3*transfer.MaxChunk, 6))
	sid, _ := ids(t)
	sev := &recorder{}
	ssum, serr := send.Send(t.Context(), send.SendConfig{Addrs: []string{pc.LocalAddr().String()}, Code: page.Code(), Identity: sid,
		Name: "desk", Items: []event.Item{{Path: src}}, Dialer: connDialer(dc), OnEvent: sev.on})
	res := <-done
	if serr != nil || res.err != nil {
		t.Fatalf("send: %v; serve: %v", serr, res.err)
	}
	sameTree(t, src, dest)
	if conns := eventsOf[event.Connected](sev); len(conns) != 1 || conns[0].PeerName != "page" {
		t.Errorf("desktop's event.Connected: %+v", conns)
	}
	if !ssum.SameMachine {
		t.Error("loopback not seen as one machine")
	}
}

// TestServeConnGuessBudget: wrong codes on connections handed to
// ServeConn count exactly as on Serve's: maxAttempts retire the code,
// and past the budget's free guesses even the right code is held back
// unchecked.
func TestServeConnGuessBudget(t *testing.T) {
	now := time.Unix(1_800_000_000, 0) // a clock that stands still: no back-off ever passes
	var mu sync.Mutex
	checked := 0
	h := &testhooks.Hooks{Checked: func(time.Time, bool) {
		mu.Lock()
		checked++
		mu.Unlock()
	}}
	b := guess.NewBudget(guess.Config{Now: func() time.Time { return now }})
	r, rev := newConnReceiver(t, ReceiverConfig{Policy: AcceptAll, hooks: h, Budget: b})
	sid, _ := ids(t)
	try := func(code string) (error, error) {
		a, b := net.Pipe()
		done := serveConn(t.Context(), r, a)
		_, serr := send.Send(t.Context(), send.SendConfig{Addrs: []string{"page"}, Code: code, Identity: sid, Name: "guesser",
			Items: []event.Item{{Text: "x"}}, Dialer: connDialer(b), Timeout: 5 * time.Second})
		return serr, (<-done).err
	}
	for i := range guess.Free {
		serr, rerr := try("wrong!")
		// Every maxAttempts-th wrong code retires the code: the error says so.
		wrong := func(err error) bool {
			return errors.Is(err, secure.ErrWrongCode) || errors.Is(err, secure.ErrCodeRetired)
		}
		if !wrong(serr) || !wrong(rerr) {
			t.Fatalf("guess %d: send %v, serve %v", i+1, serr, rerr)
		}
	}
	serr, rerr := try(r.Code())
	if !errors.Is(serr, secure.ErrCodesHeld) || rerr == nil {
		t.Fatalf("the right code after %d wrong ones: send %v, serve %v; want it held", guess.Free, serr, rerr)
	}
	mu.Lock()
	defer mu.Unlock()
	if checked != guess.Free {
		t.Errorf("%d guesses checked, want %d", checked, guess.Free)
	}
	if n := len(eventsOf[event.CodeChanged](rev)); n != guess.Free/3 {
		t.Errorf("%d codes retired by %d wrong ones, want %d", n, guess.Free, guess.Free/3)
	}
	if len(eventsOf[event.CodesHeld](rev)) == 0 {
		t.Error("no CodesHeld")
	}
}

// TestServeConnBusy: while Serve runs, a connection handed to ServeConn
// is refused as busy, and Serve goes on.
func TestServeConnBusy(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	admitted := make(chan struct{}, 1)
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Admitted: func(int) {
		select {
		case admitted <- struct{}{}:
		default:
		}
	}}})
	// Serve claims the receiver before its accept loop runs: once the
	// loop admitted a connection, Serve is serving.
	probe, err := net.Dial("tcp", p.send.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	<-admitted
	probe.Close()
	// Real TCP: a busy refusal answers the preamble while the sender is
	// still writing its first message, which net.Pipe, unbuffered, would
	// block.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	var done chan serveResult
	done = serveConn(t.Context(), p.r, a)
	sid, _ := ids(t)
	_, serr := send.Send(t.Context(), send.SendConfig{Addrs: []string{"x"}, Code: p.r.Code(), Identity: sid, Items: []event.Item{{Text: "x"}},
		Dialer: connDialer(b)})
	if !errors.Is(serr, secure.ErrBusy) {
		t.Errorf("send: %v, want ErrBusy", serr)
	}
	if res := <-done; res.err == nil {
		t.Error("ServeConn succeeded while Serve ran")
	}
	// Serve still takes its own sender.
	_, serr, _, rerr := p.run(ctx, event.Item{Text: "after"})
	if serr != nil || rerr != nil {
		t.Errorf("Serve after the refusal: %v / %v", serr, rerr)
	}
	cancel()
}

// The two tests below are a browser page's two directions with nothing
// but memory and a net.Pipe: no socket, no disk. make unit also runs
// them compiled to WebAssembly under Node (GOOS=js GOARCH=wasm), the
// core as the page runs it.

// TestPageReceives: the desktop sends a tree from an io/fs source on a
// connection the page opened; the page serves it (NoListen, ServeConn)
// into a Sink.
func TestPageReceives(t *testing.T) {
	sink := newMemSink()
	page, _ := newConnReceiver(t, ReceiverConfig{Sink: sink, Policy: AcceptAll})
	a, b := net.Pipe()
	done := serveConn(t.Context(), page, a)
	sid, _ := ids(t)
	fsys := testFS()
	_, serr := send.Send(t.Context(), send.SendConfig{Addrs: []string{"page"}, Code: page.Code(), Identity: sid, Name: "desk",
		Items: []event.Item{{FS: fsys, Path: "album"}}, Dialer: connDialer(b)})
	if res := <-done; serr != nil || res.err != nil {
		t.Fatalf("send: %v; serve: %v", serr, res.err)
	}
	_, committed, discarded, ends := sink.snapshot()
	n := 0
	fs.WalkDir(fsys, "album", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
			if want, _ := fs.ReadFile(fsys, p); !bytes.Equal(committed[p], want) {
				t.Errorf("%s: %d bytes committed, want %d", p, len(committed[p]), len(want))
			}
		}
		return nil
	})
	if n == 0 || len(committed) != n || len(discarded) != 0 || len(ends) != 1 || ends[0] != nil {
		t.Errorf("%d files, %d committed, %d discarded, ends %v", n, len(committed), len(discarded), ends)
	}
}

// TestPageSends: the page sends files that are bare streams (as a
// browser's File is) on its connection; the desktop serves it
// (ServeConn: on a desktop core/web's Mux hands it to Serve, tested
// there) into a Sink.
func TestPageSends(t *testing.T) {
	sink := newMemSink()
	desk, _ := newConnReceiver(t, ReceiverConfig{Sink: sink, Policy: AcceptAll})
	a, b := net.Pipe()
	done := serveConn(t.Context(), desk, a)
	sid, _ := ids(t)
	sfs := &streamFS{FS: testFS()}
	_, serr := send.Send(t.Context(), send.SendConfig{Addrs: []string{"desk"}, Code: desk.Code(), Identity: sid, Name: "Browser on Android",
		Items: []event.Item{{FS: sfs, Path: "single.bin", Name: "photo.bin"}, {Text: "hi"}}, Dialer: connDialer(b)})
	if res := <-done; serr != nil || res.err != nil {
		t.Fatalf("send: %v; serve: %v", serr, res.err)
	}
	want, _ := fs.ReadFile(sfs, "single.bin")
	if _, committed, _, _ := sink.snapshot(); !bytes.Equal(committed["photo.bin"], want) || string(committed["text.txt"]) != "hi" {
		t.Errorf("committed %d bytes of photo.bin (want %d), text %q", len(committed["photo.bin"]), len(want), committed["text.txt"])
	}
}
