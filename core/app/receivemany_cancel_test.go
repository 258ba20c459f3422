//go:build !js

package app

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
)

// heldConn is a real TCP connection that stops writing after 'after'
// bytes until hold is closed: its sender is mid-stream, deterministically.
type heldConn struct {
	net.Conn
	after   int
	hold    <-chan struct{}
	held    chan struct{} // closed once it waits on hold
	once    sync.Once
	written int
}

func (c *heldConn) Write(p []byte) (int, error) {
	if c.written+len(p) > c.after {
		c.once.Do(func() { close(c.held) })
		<-c.hold
	}
	n, err := c.Conn.Write(p)
	c.written += n
	return n, err
}

func (c *heldConn) dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	c.Conn = nc
	return c, err
}

// Three Nodes send to one receiver of up to three at once; all three are
// accepted, and one, held mid-stream by its connection, is cancelled
// with its Transfer's Cancel (as a card's Cancel does): it alone ends,
// its Result Cancelled and wrapping transfer.ErrCancelled, its sender
// told the reason, its history record cancelled, its partial file kept;
// the other two complete, their files verified.
func TestReceiveManyCancelOne(t *testing.T) {
	rec := newRecorder()
	rc := listen(t, namedNode(t, "desk"), rec, ReceiveConfig{MaxConcurrent: 3, Code: "314159"}) // fixed: a picked code lets in one sender
	served := make(chan error, 1)
	go func() { served <- rc.ReceiveMany(t.Context()) }()

	dir := t.TempDir()
	hold := make(chan struct{})
	hc := &heldConn{after: 1 << 20, hold: hold, held: make(chan struct{})}
	names := []string{"ann", "bob", "cy"}
	sends := map[string]*Transfer{}
	for i, name := range names {
		src := filepath.Join(dir, name+".bin")
		if err := os.WriteFile(src, bytes.Repeat([]byte{byte(i + 1)}, 4<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := SendConfig{Items: itemsOf(src), Paths: []string{src}, Addrs: []string{addrOf(rc)}, Code: rc.Code()}
		if name == "bob" {
			cfg.Dialer = hc.dial
		}
		sends[name] = namedNode(t, name).Send(t.Context(), cfg)
	}
	asked := map[string]*Transfer{}
	for range names {
		tr := <-rec.offers
		asked[tr.connected().PeerName] = tr
		tr.Accept()
	}
	<-hc.held // bob is mid-stream
	// bob's own bytes (his file is all 2s) are on disk
	testkit.WaitPartialPrefix(t, rc.Dir(), bytes.Repeat([]byte{2}, 4096))
	reason := errors.New("not this one")
	asked["bob"].Cancel(reason)
	res := asked["bob"].Wait()
	close(hold)
	if !res.Cancelled || !errors.Is(res.Err, transfer.ErrCancelled) {
		t.Errorf("bob's result: cancelled %v, %v; want cancelled, wrapping ErrCancelled", res.Cancelled, res.Err)
	}
	if got := rec.types(asked["bob"]); got[len(got)-1] != "error" {
		t.Errorf("bob's events %v, want them to end with its own error", got)
	}
	if err := sends["bob"].Wait().Err; err == nil || !strings.Contains(err.Error(), reason.Error()) {
		t.Errorf("bob's sender: %v, want the reason %q", err, reason)
	}
	for _, name := range []string{"ann", "cy"} {
		if err := sends[name].Wait().Err; err != nil {
			t.Errorf("%s's send: %v", name, err)
		}
		if err := asked[name].Wait().Err; err != nil {
			t.Errorf("%s's transfer: %v", name, err)
		}
		want, _ := os.ReadFile(filepath.Join(dir, name+".bin"))
		have, err := os.ReadFile(filepath.Join(rc.Dir(), name+".bin"))
		if err != nil || !bytes.Equal(have, want) {
			t.Errorf("%s.bin: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(rc.Dir(), "bob.bin")); !os.IsNotExist(err) {
		t.Errorf("the cancelled file was placed: %v", err)
	}
	if parts := partialFiles(t, rc.Dir()); parts != 1 {
		t.Errorf("%d partial files, want bob's kept for a resume", parts)
	}
	recs, _, err := rawHistory(rc.n).List()
	if err != nil || len(recs) != 3 {
		t.Fatalf("history: %v, %d records, want 3", err, len(recs))
	}
	for _, r := range recs {
		want := history.Verified
		if r.Peer.Name == "bob" {
			want = history.Cancelled
		}
		if r.Outcome != want {
			t.Errorf("%s's record: %v, want %v", r.Peer.Name, r.Outcome, want)
		}
	}
	rc.Close()
	if err := <-served; err != nil {
		t.Errorf("ReceiveMany after Close: %v", err)
	}
}

// partialFiles counts the files in dir's partial folder (any hidden
// folder holding them).
func partialFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, e := range must(os.ReadDir(dir)) {
		if e.IsDir() && strings.HasPrefix(e.Name(), ".") {
			n += len(must(os.ReadDir(filepath.Join(dir, e.Name()))))
		}
	}
	return n
}

// Cancel while a ReceiveMany transfer's offer waits declines it, with
// the cause as the reason, which its sender is told.
func TestReceiveManyCancelWaiting(t *testing.T) {
	rec := newRecorder()
	rc := listen(t, namedNode(t, "desk"), rec, ReceiveConfig{MaxConcurrent: 2})
	served := make(chan error, 1)
	go func() { served <- rc.ReceiveMany(t.Context()) }()
	send := namedNode(t, "ann").Send(t.Context(), SendConfig{Items: textItem("hi"), Addrs: []string{addrOf(rc)}, Code: rc.Code()})
	tr := <-rec.offers
	tr.Cancel(errors.New("not now"))
	res := tr.Wait()
	var d *DeclinedError
	if !errors.As(res.Err, &d) || d.Reason != "not now" {
		t.Errorf("result %v, want declined for %q", res.Err, "not now")
	}
	if err := send.Wait().Err; !errors.Is(err, transfer.ErrDeclined) {
		t.Errorf("sender: %v, want declined", err)
	}
	rc.Close()
	if err := <-served; err != nil {
		t.Errorf("ReceiveMany after Close: %v", err)
	}
}
