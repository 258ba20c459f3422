package receive

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// cutConn dies after a given number of written bytes, as a link that
// drops would.
type cutConn struct {
	net.Conn
	left    int64
	written *atomic.Int64
	once    sync.Once
}

func (c *cutConn) Write(p []byte) (int, error) {
	if c.left <= 0 {
		c.once.Do(func() { c.Conn.Close() })
		return 0, net.ErrClosed
	}
	n := len(p)
	if int64(n) > c.left {
		n = int(c.left)
	}
	w, err := c.Conn.Write(p[:n])
	c.left -= int64(w)
	c.written.Add(int64(w))
	if err == nil && w < len(p) {
		c.once.Do(func() { c.Conn.Close() })
		err = net.ErrClosed
	}
	return w, err
}

// TestResumeAfterCuts sends a folder over links that die after N bytes,
// for many N, each attempt resuming where the last one stopped, until one
// attempt gets through. No attempt may leave a wrong file under a final
// name, and the last one must produce the exact tree.
func TestResumeAfterCuts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "photos")
	sizes := []int{0, 1, 5000, 3*transfer.MaxChunk + 123, 7 * transfer.MaxChunk, 100, transfer.MaxChunk}
	if testing.Short() {
		sizes = []int{0, 1, 5000, 3*transfer.MaxChunk + 123, 100}
	}
	var total int64
	for i, n := range sizes {
		writeFile(t, filepath.Join(src, "sub", string(rune('a'+i))+".bin"), pattern(n, byte(i)))
		total += int64(n)
	}
	dest := filepath.Join(dir, "dest")
	os.Mkdir(dest, 0o755)

	// First cuts land in the handshake, the offer and the answer; then
	// they step through the data.
	cuts := []int64{1, 40, 150, 400, 1200, 3000, 70_000, 200_000, 333_333, 400_000, 600_000, 800_000}
	var streamed, wire int64
	attempts := 0
	for done := false; !done; attempts++ {
		if attempts > 100 {
			t.Fatal("no progress after 100 attempts")
		}
		cut := int64(1 << 62)
		if attempts < len(cuts) {
			cut = cuts[attempts]
		}
		var written atomic.Int64
		p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
		p.send.Timeout = 5 * time.Second
		p.send.Dialer = func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			return &cutConn{Conn: c, left: cut, written: &written}, nil
		}
		var lastDone int64
		p.sev.hook = func(ev event.Event) {
			if pr, ok := ev.(event.Progress); ok {
				lastDone = pr.Done
			}
		}
		cfg := p.send
		cfg.Items = []event.Item{{Path: src}}
		ssum, serr := send.Send(t.Context(), cfg)
		if serr != nil && strings.Contains(serr.Error(), "securing the connection") {
			// A cut inside the handshake leaves the receiver listening
			// for another try, as it should: stop it. A cut after it
			// ends the receiver's session on its own.
			p.r.Close()
		}
		rerr := p.serveErr(t)
		wire += written.Load()
		if serr == nil && rerr == nil {
			streamed += ssum.Bytes
			t.Logf("attempt %d (uncut): sent %d, resumed %d, skipped %d", attempts, ssum.Bytes, ssum.ResumedBytes, ssum.SkippedBytes)
			done = true
			break
		}
		streamed += lastDone
		t.Logf("attempt %d, cut after %d bytes: %v / %v", attempts, cut, serr, rerr)
		if serr == nil || rerr == nil {
			t.Fatalf("attempt %d: one end succeeded alone: send %v, receive %v", attempts, serr, rerr)
		}
		if errors.Is(rerr, transfer.ErrVerify) || errors.Is(serr, transfer.ErrVerify) {
			t.Fatalf("attempt %d: %v / %v", attempts, serr, rerr)
		}
		// Whatever is under a final name must be exactly right.
		filepath.WalkDir(filepath.Join(dest, "photos"), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dest, p)
			want, _ := os.ReadFile(filepath.Join(dir, rel))
			got, _ := os.ReadFile(p)
			if string(want) != string(got) {
				t.Fatalf("attempt %d: %s is under its final name with wrong content", attempts, rel)
			}
			return nil
		})
	}
	// The folders were created by the first attempts: to the last one
	// they already existed, and it keeps their times.
	compareTree(t, src, dest, false)
	if n := listDir(t, dest); len(n) != 1 {
		t.Errorf("destination holds %v", n)
	}
	t.Logf("%d attempts for %d bytes: payload streamed %d in total, so %d bytes (%.1f%%) were sent more than once; %d bytes crossed the wire",
		attempts, total, streamed, streamed-total, 100*float64(streamed-total)/float64(total), wire)
}
