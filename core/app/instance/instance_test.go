//go:build linux

package instance

import (
	"context"
	"net"
	"os"
	"reflect"
	"testing"
)

// A later process hands its files to the one that claimed the socket,
// which answers only once it has them; a socket file nobody answers on
// (an app that crashed) is taken over; another config folder is another
// socket.
func TestClaimHandsOver(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sock, err := Socket(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, handed, err := Claim(sock, Handoff{})
	if err != nil || handed {
		t.Fatalf("first Claim: handed %v, %v", handed, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Handoff, 2)
	served := make(chan struct{})
	go func() {
		defer close(served)
		Serve(ctx, l, func(h Handoff) bool { got <- h; return h.Link == "" })
	}()

	want := Handoff{Files: []string{"/home/ann/a b.txt", "/home/ann/c"}}
	if _, handed, err := Claim(sock, want); err != nil || !handed {
		t.Fatalf("second Claim: handed %v, %v", handed, err)
	}
	if h := <-got; !reflect.DeepEqual(h, want) {
		t.Errorf("the running app got %+v, want %+v", h, want)
	}
	// Not taken: the later process is not told it was.
	if handed, err := Send(sock, Handoff{Link: "ferry://x"}); handed || err == nil {
		t.Errorf("a hand-off the app did not take: handed %v, %v", handed, err)
	}
	<-got

	cancel()
	<-served
	if _, err := net.Dial("unix", sock); err == nil {
		t.Error("the socket still answers after the context ended")
	}
	if other, _ := Socket(t.TempDir()); other == sock {
		t.Error("two config folders share one socket")
	}
}

// A message that is not one line of JSON is dropped without an answer.
func TestServeDropsGarbage(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sock, _ := Socket("")
	l, _, err := Claim(sock, Handoff{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, l, func(Handoff) bool { t.Error("take called for garbage"); return true })
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("{not json\n"))
	if n, _ := c.Read(make([]byte, 8)); n != 0 {
		t.Errorf("garbage got an answer of %d bytes", n)
	}
}
