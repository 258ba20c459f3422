package receive

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
)

// TestMain fails the run if any goroutine started by the tests outlives
// them.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

var (
	idOnce           sync.Once
	senderID, recvID *secure.Identity
)

func ids(t testing.TB) (*secure.Identity, *secure.Identity) {
	idOnce.Do(func() {
		var err error
		if senderID, err = secure.NewIdentity(); err != nil {
			panic(err)
		}
		if recvID, err = secure.NewIdentity(); err != nil {
			panic(err)
		}
	})
	return senderID, recvID
}

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	hook   func(event.Event)
}

func (r *recorder) on(ev event.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(ev)
	}
}

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

func eventsOf[T event.Event](r *recorder) []T {
	var out []T
	for _, ev := range r.all() {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// pair is a receiver serving in the background and the config a sender
// needs to reach it.
type pair struct {
	t      *testing.T
	r      *Receiver
	rev    *recorder
	sev    *recorder
	send   send.SendConfig
	served chan serveResult
}

type serveResult struct {
	sum event.Summary
	err error
}

// newPair starts a receiver on loopback with rcfg (Dir, Identity, Listen
// and OnEvent filled in when empty) and serves once in the background.
func newPair(t *testing.T, ctx context.Context, rcfg ReceiverConfig) *pair {
	t.Helper()
	sid, rid := ids(t)
	p := &pair{t: t, rev: &recorder{}, sev: &recorder{}, served: make(chan serveResult, 1)}
	if rcfg.Dir == "" {
		rcfg.Dir = t.TempDir()
	}
	rcfg.Identity = rid
	if rcfg.Listen == "" {
		rcfg.Listen = "127.0.0.1:0"
	}
	if rcfg.OnEvent == nil {
		rcfg.OnEvent = p.rev.on
	}
	if rcfg.Name == "" {
		rcfg.Name = "receiver-box"
	}
	r, err := NewReceiver(rcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	p.r = r
	go func() {
		sum, err := r.Serve(ctx)
		p.served <- serveResult{sum, err}
	}()
	p.send = send.SendConfig{
		Addrs: []string{fmt.Sprintf("127.0.0.1:%d", r.Port())}, Code: r.Code(), Identity: sid,
		Name: "sender-box", OnEvent: p.sev.on,
	}
	return p
}

// run sends items and waits for both ends.
func (p *pair) run(ctx context.Context, items ...event.Item) (event.Summary, error, event.Summary, error) {
	p.t.Helper()
	cfg := p.send
	cfg.Items = items
	ssum, serr := send.Send(ctx, cfg)
	res := <-p.served
	return ssum, serr, res.sum, res.err
}

func writeFile(t testing.TB, path string, data []byte) { testkit.WriteFile(t, path, data) }

// pattern returns n bytes that differ at every offset of a chunk.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// sameTree checks that dst holds exactly src's files, folders, contents,
// modes and times (ignoring dst's partial folder).
func sameTree(t *testing.T, src, dst string) {
	t.Helper()
	compareTree(t, src, dst, true)
}

// compareTree is sameTree, with folder times checked only when
// folderTimes is set: a folder that an interrupted transfer created
// exists for the next one, which leaves its time alone.
func compareTree(t *testing.T, src, dst string, folderTimes bool) {
	t.Helper()
	testkit.SameTree(t, src, filepath.Join(dst, filepath.Base(src)), testkit.Compare{Modes: true, FileTimes: true, FolderTimes: folderTimes})
}

// listDir returns the names in dir, partial folder excluded.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	if testkit.PartialFolder != place.PartialDir {
		t.Fatalf("testkit.PartialFolder is %q, the receiver uses %q", testkit.PartialFolder, place.PartialDir)
	}
	return testkit.FinalNames(t, dir)
}
