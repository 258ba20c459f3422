package receive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
)

// Three senders at once over real TCP; one, held mid-stream by its own
// connection (it stops writing after 1 MiB until let go), is cancelled
// with CancelSession. It alone ends, with its own Failed event wrapping
// ErrCancelled, its sender told the reason, and its partial file kept;
// the other two complete, their files verified.
func TestCancelSessionLeavesOthers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 3, Policy: AcceptAll, Code: sharedCode})
	src := t.TempDir()
	hold := make(chan struct{})
	defer func() {
		select {
		case <-hold:
		default:
			close(hold)
		}
	}()
	g := &gatedConn{holdAfter: 1 << 20, hold: hold, held: make(chan struct{})}
	heldPath := filepath.Join(src, "held.bin")
	writeFile(t, heldPath, pattern(4<<20, 7))
	heldCfg := m.sender("held", event.Item{Path: heldPath})
	heldCfg.Dialer = gatedDialer(g)
	heldDone := make(chan error, 1)
	go func() { _, err := send.Send(ctx, heldCfg); heldDone <- err }()
	<-g.held // mid-stream: 1 MiB written, the rest held
	id := sessionNamed(t, m, ctx, "held")

	var fast []send.SendConfig
	for i := range 2 {
		p := filepath.Join(src, fmt.Sprintf("fast%d.bin", i))
		writeFile(t, p, pattern(8<<20, byte(2+i)))
		fast = append(fast, m.sender(fmt.Sprint("fast", i), event.Item{Path: p}))
	}
	fastErrs := make(chan []error, 1)
	go func() { fastErrs <- sendAll(ctx, fast...) }()
	m.waitEvents(ctx, 3, func(ev event.Event) bool { _, ok := ev.(event.Connected); return ok })

	testkit.WaitPartialPrefix(t, m.dir, pattern(4096, 7)) // the held sender's bytes are on disk
	reason := errors.New("the person cancelled this one")
	if err := m.r.CancelSession(id, reason); err != nil {
		t.Fatal(err)
	}
	failed := m.waitEvents(ctx, 1, func(ev event.Event) bool { f, ok := ev.(event.Error); return ok && f.Session != 0 })
	f := failed[0].(event.Error)
	if f.Session != id || !errors.Is(f.Err, transfer.ErrCancelled) || !errors.Is(f.Err, reason) {
		t.Fatalf("Failed %+v, want session %d's, wrapping ErrCancelled and the reason", f, id)
	}
	close(hold)
	err := <-heldDone
	if err == nil || !strings.Contains(err.Error(), reason.Error()) {
		t.Fatalf("held sender ended with %v, want the reason %q", err, reason)
	}
	for i, err := range <-fastErrs {
		if err != nil {
			t.Fatalf("fast sender %d: %v", i, err)
		}
	}
	for _, name := range []string{"fast0.bin", "fast1.bin"} {
		want, _ := os.ReadFile(filepath.Join(src, name))
		have, err := os.ReadFile(filepath.Join(m.dir, name))
		if err != nil || !bytes.Equal(have, want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(m.dir, "held.bin")); !os.IsNotExist(err) {
		t.Fatalf("the cancelled file was placed: %v", err)
	}
	parts, _ := os.ReadDir(filepath.Join(m.dir, place.PartialDir))
	if len(parts) != 1 {
		t.Fatalf("%d partial files after the cancel, want the cancelled one's", len(parts))
	}
	for _, ev := range eventsOf[event.Error](m.rev) {
		if ev.Session != 0 && ev.Session != id {
			t.Fatalf("session %d failed too: %v", ev.Session, ev.Err)
		}
	}
	m.idle(ctx)
	if err := m.r.CancelSession(id, reason); err == nil {
		t.Fatal("CancelSession of an ended session succeeded")
	}
}

// sessionNamed waits for the Connected event of the sender named name
// and returns its session's id.
func sessionNamed(t *testing.T, m *many, ctx context.Context, name string) int {
	t.Helper()
	ev := m.waitEvents(ctx, 1, func(ev event.Event) bool { c, ok := ev.(event.Connected); return ok && c.PeerName == name })
	return event.SessionOf(ev[0])
}
