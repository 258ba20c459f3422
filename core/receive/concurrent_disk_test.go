//go:build linux

package receive

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// Free space counts what the transfers already accepted will still
// write: on a real 8 MiB tmpfs, a 5 MiB transfer holds after about
// 1 MiB, and a second 5 MiB offer, which the disk's free space alone
// would take, is refused as not enough space. The first then finishes.
func TestServeManySpaceCountsAccepted(t *testing.T) {
	dest := smallDisk(t, "8m")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{Dir: dest, MaxConcurrent: 2, Policy: AcceptAll})
	src := t.TempDir()
	a, b := filepath.Join(src, "a.bin"), filepath.Join(src, "b.bin")
	writeFile(t, a, pattern(5<<20, 1))
	writeFile(t, b, pattern(5<<20, 2))
	hold := make(chan struct{})
	g := &gatedConn{holdAfter: 1 << 20, hold: hold, held: make(chan struct{})}
	first := m.sender("first", event.Item{Path: a})
	first.Dialer = gatedDialer(g)
	done := make(chan error, 1)
	go func() { _, err := send.Send(ctx, first); done <- err }()
	<-g.held
	if _, err := send.Send(ctx, m.sender("second", event.Item{Path: b})); !errors.Is(err, transfer.ErrNoSpace) {
		t.Fatalf("an offer that fits only beside nothing: got %v, want ErrNoSpace", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatalf("the first transfer: %v", err)
	}
	have, _ := os.ReadFile(filepath.Join(dest, "a.bin"))
	want, _ := os.ReadFile(a)
	if !bytes.Equal(have, want) {
		t.Fatal("a.bin differs")
	}
}

// Two offers that each fit, asked at once: the first accepted counts, and
// the second, accepted after, is refused as not enough space rather than
// failing with a full disk half way.
func TestServeManySpaceCheckedOnAccept(t *testing.T) {
	dest := smallDisk(t, "5m")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{Dir: dest, MaxConcurrent: 2, Code: sharedCode})
	src := t.TempDir()
	a, b := filepath.Join(src, "a.bin"), filepath.Join(src, "b.bin")
	writeFile(t, a, pattern(3<<20, 1))
	writeFile(t, b, pattern(3<<20, 2))
	recs := []*recorder{{}, {}}
	sa, sb := m.sender("a", event.Item{Path: a}), m.sender("b", event.Item{Path: b})
	sa.OnEvent, sb.OnEvent = recs[0].on, recs[1].on
	errs := make(chan []error, 1)
	go func() { errs <- sendAll(ctx, sa, sb) }()
	offers := m.waitEvents(ctx, 2, isOffered)
	m.r.AcceptSession(event.SessionOf(offers[0]))
	m.r.AcceptSession(event.SessionOf(offers[1]))
	got := <-errs
	var ok, noSpace int
	for i, err := range got {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, transfer.ErrNoSpace):
			noSpace++
			// Refused before a byte was sent, not by a full disk.
			if n := len(eventsOf[event.Accepted](recs[i])); n != 0 {
				t.Fatalf("sender %d was accepted, then: %v", i, err)
			}
		default:
			t.Fatalf("unexpected: %v", err)
		}
	}
	if ok != 1 || noSpace != 1 {
		t.Fatalf("outcomes %v: want one sent, one refused for space", got)
	}
	for _, f := range eventsOf[event.Error](m.rev) {
		if f.Session != 0 && !errors.Is(f.Err, transfer.ErrNoSpace) {
			t.Fatalf("session %d failed with %v", f.Session, f.Err)
		}
	}
}
