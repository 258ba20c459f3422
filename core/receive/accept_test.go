package receive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
)

// waitLimit bounds waits for things that happen in milliseconds when the
// code is right; reaching it is the failure, not a measurement.
const waitLimit = 30 * time.Second

// from returns a dialer whose connections come from the loopback address
// 127.0.0.x: Linux routes all of 127/8 to lo, so tests can play several
// source addresses without leaving the machine.
func from(x int) func(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(x))}}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", addr)
	}
}

// Five hundred connections that never finish a handshake, from ten
// sources, do not lock out an honest sender from one of those sources:
// the receiver keeps at most maxPending of them, closing the oldest.
func TestStalledFloodDoesNotLockOut(t *testing.T) {
	ctx := t.Context()
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	const n = 500
	closed := make(chan int, n)
	var wg sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, nc := range conns {
			nc.Close()
		}
		wg.Wait()
	})
	for i := range n {
		nc, err := from(1+i%10)(ctx, p.send.Addrs[0])
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, nc)
		nc.Write([]byte("FER")) // a preamble that never ends
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(io.Discard, nc)
			closed <- i
		}()
	}
	// Exactly the oldest n-maxPending are closed by the receiver.
	for range n - maxPending {
		select {
		case i := <-closed:
			if i >= n-maxPending {
				t.Fatalf("connection %d of %d was closed; the oldest should go first", i, n)
			}
		case <-time.After(waitLimit):
			t.Fatal("the receiver did not close the oldest stalled connections")
		}
	}
	src := filepath.Join(t.TempDir(), "f.bin")
	data := pattern(100_000, 7)
	writeFile(t, src, data)
	p.send.Dialer = from(1)
	if _, serr, _, rerr := p.run(ctx, event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("honest sender behind the flood: send %v, receive %v", serr, rerr)
	}
	if got, _ := os.ReadFile(filepath.Join(p.r.cfg.Dir, "f.bin")); !bytes.Equal(got, data) {
		t.Fatal("the file arrived damaged")
	}
	// Serve has returned: it closed every connection still pending.
	for range maxPending {
		select {
		case <-closed:
		case <-time.After(waitLimit):
			t.Fatal("stalled connections outlived Serve")
		}
	}
}

// Stalled connections from one source lose their oldest once they reach
// maxPendingPerSource, and a sender from that same source still gets in.
func TestPendingLimitPerSource(t *testing.T) {
	ctx := t.Context()
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	const n = 20
	closed := make(chan int, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range n {
		nc, err := from(2)(ctx, p.send.Addrs[0])
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(io.Discard, nc)
			closed <- i
		}()
	}
	for range n - maxPendingPerSource {
		select {
		case i := <-closed:
			if i >= n-maxPendingPerSource {
				t.Fatalf("connection %d of %d was closed; the oldest should go first", i, n)
			}
		case <-time.After(waitLimit):
			t.Fatal("the receiver did not close the oldest connections from one source")
		}
	}
	src := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, src, []byte("same source"))
	p.send.Dialer = from(2)
	if _, serr, _, rerr := p.run(ctx, event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("sender from the stalled source: send %v, receive %v", serr, rerr)
	}
}

// A sender that arrives while a transfer runs is told the receiver is
// busy, whether it connects during the transfer (refused in place of
// message 2) or connected before it and finished its handshake after
// (refused at its first read); the transfer in progress is unharmed.
func TestBusyDuringTransfer(t *testing.T) {
	ctx := t.Context()
	p := newPair(t, ctx, ReceiverConfig{Policy: Ask})
	offered := make(chan struct{})
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Offer); ok {
			close(offered)
		}
	}
	early, err := net.Dial("tcp", p.send.Addrs[0]) // admitted before the first sender
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()

	dir := t.TempDir()
	src := filepath.Join(dir, "first.bin")
	data := pattern(3*transfer.MaxChunk+5, 3)
	writeFile(t, src, data)
	type result struct {
		sum event.Summary
		err error
	}
	first := make(chan result, 1)
	go func() {
		cfg := p.send
		cfg.Items = []event.Item{{Path: src}}
		sum, err := send.Send(ctx, cfg)
		first <- result{sum, err}
	}()
	<-offered

	other := filepath.Join(dir, "second.txt")
	writeFile(t, other, []byte("me too"))
	second := p.send
	second.Items = []event.Item{{Path: other}}
	second.OnEvent = nil
	_, err = send.Send(ctx, second)
	if !errors.Is(err, secure.ErrBusy) {
		t.Fatalf("sender during a transfer: got %v, want ErrBusy", err)
	}
	if !strings.Contains(err.Error(), "in another transfer") {
		t.Errorf("busy error does not say why: %v", err)
	}
	t.Logf("second sender: %v", err)
	second.Dialer = func(context.Context, string) (net.Conn, error) { return early, nil }
	if _, err := send.Send(ctx, second); !errors.Is(err, secure.ErrBusy) {
		t.Fatalf("sender whose handshake ended during a transfer: got %v, want ErrBusy", err)
	} else {
		t.Logf("early sender: %v", err)
	}

	p.r.Accept()
	res := <-first
	served := <-p.served
	if res.err != nil || served.err != nil {
		t.Fatalf("first transfer: send %v, receive %v", res.err, served.err)
	}
	if got, _ := os.ReadFile(filepath.Join(p.r.cfg.Dir, "first.bin")); !bytes.Equal(got, data) {
		t.Fatal("the first transfer's file is damaged")
	}
	if names := listDir(t, p.r.cfg.Dir); len(names) != 1 {
		t.Errorf("destination holds %v, want only first.bin", names)
	}
	if c := eventsOf[event.Connected](p.rev); len(c) != 1 {
		t.Errorf("receiver reported %d connections, want 1", len(c))
	}
}

// Many wrong codes at once never get more than maxAttempts guesses
// checked against one code: each retired code had exactly maxAttempts-1
// senders told "wrong code" (and one told "retired"), and every other
// guess is refused unchecked as retired, or as held back by the guess
// budget.
func TestConcurrentWrongCodes(t *testing.T) {
	ctx := t.Context()
	const max, n = 3, 40
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Attempts: max}})
	src := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, src, []byte("secret"))
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		cfg := p.send
		cfg.Items = []event.Item{{Path: src}}
		cfg.OnEvent = nil
		cfg.Code = fmt.Sprintf("x%05d", i) // never a real code: those are digits
		cfg.Dialer = from(2 + i%10)        // under the per-source limit
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := send.Send(ctx, cfg)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	wrong, retired, held := 0, 0, 0
	for err := range errs {
		switch {
		case errors.Is(err, secure.ErrCodesHeld):
			held++
		case errors.Is(err, secure.ErrCodeRetired):
			retired++
		case errors.Is(err, secure.ErrWrongCode):
			wrong++
		default:
			t.Errorf("wrong code got %v", err)
		}
	}
	changed := len(eventsOf[event.CodeChanged](p.rev))
	t.Logf("%d wrong, %d retired, %d held, %d codes retired", wrong, retired, held, changed)
	if changed == 0 || wrong < (max-1)*changed || wrong > (max-1)*(changed+1) {
		t.Fatalf("%d senders told wrong code for %d retired codes: more than %d guesses were checked against a code",
			wrong, changed, max)
	}
	if n := listDir(t, p.r.cfg.Dir); len(n) != 0 {
		t.Fatalf("wrong codes wrote %v", n)
	}
	// Past the budget's free guesses, the right code waits out the
	// back-off like any other.
	if h := eventsOf[event.CodesHeld](p.rev); len(h) > 0 {
		until, _ := time.Parse(time.RFC3339Nano, h[len(h)-1].Until)
		time.Sleep(time.Until(until))
	}
	p.send.Code = p.r.Code()
	if _, serr, _, rerr := p.run(ctx, event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("the current code after the storm: send %v, receive %v", serr, rerr)
	}
}

// Close, or cancelling Serve's context, while handshakes are pending ends
// them all before Serve returns.
func TestStopWithHandshakesPending(t *testing.T) {
	for _, how := range []string{"close", "cancel"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			const n = 5
			admitted := make(chan int, n)
			p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Admitted: func(k int) { admitted <- k }}})
			var conns []net.Conn
			for range n {
				nc, err := net.Dial("tcp", p.send.Addrs[0])
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				conns = append(conns, nc)
			}
			for k := 0; k < n; k = <-admitted {
			}
			if how == "close" {
				p.r.Close()
			} else {
				cancel()
			}
			res := <-p.served
			if !errors.Is(res.err, transfer.ErrCancelled) {
				t.Fatalf("Serve: got %v, want ErrCancelled", res.err)
			}
			// A handshake's goroutine may still be returning from its
			// deferred wg.Done when Serve returns; one that runs on past
			// the limit is a leak.
			if stacks := running("transfer.(*acceptor)", 5*time.Second); stacks != "" {
				t.Fatalf("handshake goroutines outlived Serve:\n%s", stacks)
			}
			for _, nc := range conns {
				nc.SetReadDeadline(time.Now().Add(waitLimit))
				if _, err := nc.Read(make([]byte, 1)); err != io.EOF {
					t.Fatalf("pending connection: read %v, want EOF", err)
				}
			}
		})
	}
}

// running waits up to limit for no goroutine to run in fn and returns
// the stacks of those that still do.
func running(fn string, limit time.Duration) string {
	return testkit.WaitGone(limit, func(g string) bool { return strings.Contains(g, fn) })
}

// A connection accepted while Serve is ending (its codes stopped, its
// person quit) is closed unanswered: the sender is not told "busy",
// which would send it back to try a receiver that is going away. The
// acceptor is held in its stopping state here, since the real window
// (between Serve deciding to end and its listener's deadline) is too
// short for a test to land in.
func TestEndingServeIsNotBusy(t *testing.T) {
	sid, rid := ids(t)
	r, err := NewReceiver(ReceiverConfig{Identity: rid, Listen: "127.0.0.1:0", Dir: t.TempDir(), Name: "receiver-box"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancelCause(t.Context())
	a := r.start(ctx, r.ev, &sessionSlots{r: r, left: 1}, 1)
	a.mu.Lock()
	a.stopping = true
	a.mu.Unlock()
	cfg := send.SendConfig{Addrs: []string{fmt.Sprintf("127.0.0.1:%d", r.Port())}, Code: r.Code(), Identity: sid, Name: "sender-box"}
	src := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, src, []byte("late"))
	cfg.Items = []event.Item{{Path: src}}
	_, err = send.Send(ctx, cfg)
	a.stop(cancel)
	if errors.Is(err, secure.ErrBusy) || !errors.Is(err, secure.ErrConnectionLost) {
		t.Fatalf("sender reaching a receiver that is ending: got %v, want the connection lost", err)
	}
	t.Logf("sender: %v", err)
}
