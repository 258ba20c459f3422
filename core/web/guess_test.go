package web

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

// offlineGuesser is what any host on the network can do to a desktop
// that sends to the browser page: load the page (its token is public),
// open the WebSocket and run the page's side of the handshake with a
// guessed code up to message 3, test the guess against message 3 itself
// (the check Config.Guess is handed is exactly that offline test: one
// DH and one AEAD open) and hang up without a word. It returns whether
// the guess opened message 3.
func offlineGuesser(t *testing.T, addr, guess string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, err := wsDialer(addr, "http://"+addr)(ctx, "")
	if err != nil {
		t.Fatalf("guesser's WebSocket: %v", err)
	}
	defer nc.Close()
	var right, tested atomic.Bool
	sc, err := secure.Server(ctx, nc, secure.Config{Identity: testid.New(t), Code: guess,
		Guess: func(check func() bool) secure.GuessAnswer {
			right.Store(check())
			tested.Store(true)
			nc.Close() // hang up: the desktop is told nothing
			return secure.Wrong
		}})
	if err == nil {
		sc.Close() // a right guess: the handshake returned on the closed socket
	}
	if !tested.Load() {
		t.Fatalf("guesser never got message 3: %v", err)
	}
	return right.Load()
}

// quitter opens the WebSocket and hangs up after the preambles, before
// any guess could be tested.
func quitter(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, err := wsDialer(addr, "http://"+addr)(ctx, "")
	if err != nil {
		t.Fatalf("WebSocket: %v", err)
	}
	var b [7]byte
	if _, err := readFull(nc, b[:]); err != nil {
		t.Fatalf("reading the desktop's preamble: %v", err)
	}
	nc.Close()
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// toPage runs the desktop's side of ferry send --to-browser: Send on the
// Mux, with its Unproven events.
func toPage(t *testing.T, m *Mux, code string) (<-chan error, <-chan event.Unproven) {
	t.Helper()
	parent, name := tree(t)
	done := make(chan error, 1)
	unproven := make(chan event.Unproven, 16)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := send.Send(ctx, send.SendConfig{Listener: m, Code: code, Identity: testid.New(t), Name: "desk",
			Items: []transfer.Item{{Path: filepath.Join(parent, name)}}, Timeout: 10 * time.Second,
			OnEvent: func(ev event.Event) {
				if u, ok := ev.(event.Unproven); ok {
					unproven <- u
				}
			}})
		done <- err
	}()
	return done, unproven
}

// TestPageGuessesCounted: a connection that reaches message 3 and hangs
// up without proving the code counts as a wrong guess, even though it
// never says so; after send.MaxListenerGuesses of them the desktop
// stops. Connections that end before message 3 tested nothing and are
// not counted.
func TestPageGuessesCounted(t *testing.T) {
	m, addr := startMux(t, Config{Name: "desk", ToBrowser: true})
	const code = "424242424242"
	done, unproven := toPage(t, m, code)

	for range 2 {
		quitter(t, addr)
		if u := <-unproven; u.Guessed || u.Wrong != 0 {
			t.Fatalf("a connection closed before message 3 counted: %+v", u)
		}
	}
	guesses := []string{"000000000001", "000000000002", code}
	for i, g := range guesses {
		if right := offlineGuesser(t, addr, g); right != (g == code) {
			t.Fatalf("guess %s tested %v offline", g, right)
		}
		u := <-unproven
		if !u.Guessed || u.Wrong != i+1 || u.Allowed != send.MaxListenerGuesses {
			t.Fatalf("guess %d: %+v, want counted as %d of %d", i+1, u, i+1, send.MaxListenerGuesses)
		}
	}
	select {
	case err := <-done:
		if !errors.Is(err, transfer.ErrCodesStopped) {
			t.Fatalf("after %d silent guesses Send returned %v, want ErrCodesStopped", len(guesses), err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Send still waiting for the page after %d silent guesses", len(guesses))
	}
}

// TestPageProvesAfterGuesses: an honest page still gets the files after
// guessers that stayed under the limit, and a page with the code proves
// it (its first record), so nothing more is counted.
func TestPageProvesAfterGuesses(t *testing.T) {
	m, addr := startMux(t, Config{Name: "desk", ToBrowser: true})
	const code = "135791357913"
	done, unproven := toPage(t, m, code)
	for i := range send.MaxListenerGuesses - 1 {
		offlineGuesser(t, addr, "99999999999"+string(rune('0'+i)))
		if u := <-unproven; u.Wrong != i+1 {
			t.Fatalf("guess %d: %+v", i+1, u)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc, err := wsDialer(addr, "http://"+addr)(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, NoListen: true, Code: code, Identity: testid.New(t),
		Name: "page", Policy: receive.AcceptAll})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.ServeConn(ctx, nc); err != nil {
		t.Fatalf("page receiving: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("desktop: %v", err)
	}
	select {
	case u := <-unproven:
		t.Fatalf("the honest page was reported unproven: %+v", u)
	default:
	}
}
