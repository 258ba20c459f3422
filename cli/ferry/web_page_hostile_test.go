package main

// The page's end of `ferry send --to-browser`, played in Go on the
// page's WebSocket. Both tests speak the wire themselves: the page's
// receiving side is the engine on a connection the page opened
// (gui/page/wasm does the same today), which core/app cannot be handed,
// and a silent guesser runs the handshake only up to message 3 and hangs
// up, which no honest end does. They stay on the engine, here.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/tests/proc"
)

// ferry send --to-browser: the page (a Go receiver on the WebSocket
// here) runs the receiving side with the code from the link.
func TestE2ESendToBrowser(t *testing.T) {
	src := writeTree(t)
	s := proc.Start(t, ferryCmd(t, "send", "--to-browser", "--listen", "127.0.0.1:0", "--json", filepath.Join(src, "readme.txt")), true)
	ev := s.Until("page", 20*time.Second)
	links, _ := ev["links"].([]any)
	if len(links) == 0 {
		t.Fatalf("page event: %v", ev)
	}
	link := links[0].(string)
	if !regexp.MustCompile(`#code=[0-9]{12}&fp=`).MatchString(link) {
		t.Fatalf("link %q", link)
	}
	nc, frag := pageSocket(t, link)
	dest := t.TempDir()
	id := testid.New(t)
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, NoListen: true, Code: frag.Get("code"), Identity: id,
		Name: "Browser on Test", Policy: receive.AcceptAll})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := r.ServeConn(ctx, nc); err != nil {
		t.Fatalf("page receiving: %v", err)
	}
	if code := s.Exit(20 * time.Second); code != 0 {
		t.Fatalf("send --to-browser exit %d:\n%s", code, s.StderrText())
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "readme.txt")); string(got) != "hello from ferry\n" {
		t.Fatalf("page received %q", got)
	}
}

// ferry send --to-browser stops after three pages that ran the page's
// side of the handshake up to message 3, tested their guess against it
// themselves and hung up without a word: before, each was "ended before
// it was secured" and the sender waited for the next, without limit.
// With --json each is an unproven event.
func TestSendToBrowserStopsSilentGuessers(t *testing.T) {
	src := writeTree(t)
	s := proc.Start(t, ferryCmd(t, "send", "--to-browser", "--listen", "127.0.0.1:0", "--json", filepath.Join(src, "readme.txt")), true)
	ev := s.Until("page", 20*time.Second)
	links, _ := ev["links"].([]any)
	if len(links) == 0 {
		t.Fatalf("page event: %v", ev)
	}
	for i := range app.MaxListenerGuesses {
		nc, _ := pageSocket(t, links[0].(string))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		tested := false
		secure.Server(ctx, nc, secure.Config{Identity: testid.New(t), Code: fmt.Sprintf("%012d", i),
			Guess: func(check func() bool) secure.GuessAnswer {
				check() // the offline test of one guess
				tested = true
				nc.Close()
				return secure.Wrong
			}})
		cancel()
		nc.Close()
		if !tested {
			t.Fatalf("guesser %d never got message 3", i+1)
		}
		// Each is an unproven event in --json, counted against the link.
		u := s.Until("unproven", 10*time.Second)
		if u["guessed"] != true || u["wrong"] != float64(i+1) || u["allowed"] != float64(app.MaxListenerGuesses) ||
			u["message"] == "" || u["addr"] == "" {
			t.Fatalf("guesser %d's unproven event: %v", i+1, u)
		}
	}
	if code := s.Exit(20 * time.Second); code == 0 {
		t.Fatalf("send --to-browser succeeded after %d silent guessers", app.MaxListenerGuesses)
	}
	if e := s.StderrText(); !strings.Contains(e, "ended without proving the code (3 of 3 allowed)") ||
		!strings.Contains(e, "stopped waiting for the page") {
		t.Fatalf("send --to-browser's stderr:\n%s", e)
	}
}
