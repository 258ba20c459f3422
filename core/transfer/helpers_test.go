package transfer

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/secure"
)

// TestMain fails the run if any goroutine started by this package
// outlives the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitNoLeaks(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "leaked goroutines:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// waitNoLeaks waits until no goroutine runs this package's code (other
// than the caller) and returns the stacks of those that still do.
func waitNoLeaks(limit time.Duration) string {
	return waitGone(limit, func(g string) bool {
		return strings.Contains(g, "core/transfer.") && !strings.Contains(g, "waitGone") && !strings.Contains(g, "testing.(*M)")
	})
}

// waitGone waits until no goroutine's stack satisfies match and returns
// the stacks of those that still do at limit. It polls because a
// goroutine that has signalled its end (a WaitGroup's Done, a send) is
// still on the stack until its deferred calls return, and nothing
// signals that last step.
func waitGone(limit time.Duration, match func(stack string) bool) string {
	deadline := time.Now().Add(limit)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for g := range strings.SplitSeq(string(buf), "\n\n") {
			if match(g) {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // polling a condition nothing signals
	}
}

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
	events []Event
	hook   func(Event)
}

func (r *recorder) on(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(ev)
	}
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func eventsOf[T Event](r *recorder) []T {
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
	send   SendConfig
	served chan serveResult
}

type serveResult struct {
	sum Summary
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
	rcfg.Listen = "127.0.0.1:0"
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
	p.send = SendConfig{
		Addrs: []string{fmt.Sprintf("127.0.0.1:%d", r.Port())}, Code: r.Code(), Identity: sid,
		Name: "sender-box", OnEvent: p.sev.on,
	}
	return p
}

// run sends items and waits for both ends.
func (p *pair) run(ctx context.Context, items ...Item) (Summary, error, Summary, error) {
	p.t.Helper()
	cfg := p.send
	cfg.Items = items
	ssum, serr := Send(ctx, cfg)
	res := <-p.served
	return ssum, serr, res.sum, res.err
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

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
	seen := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(src), p)
		seen[rel] = true
		other := filepath.Join(dst, rel)
		si, _ := d.Info()
		di, err := os.Lstat(other)
		if err != nil {
			t.Errorf("%s: missing at the receiver: %v", rel, err)
			return nil
		}
		if si.IsDir() != di.IsDir() {
			t.Errorf("%s: folder/file mismatch", rel)
			return nil
		}
		if (folderTimes || !si.IsDir()) && !si.ModTime().Equal(di.ModTime()) {
			t.Errorf("%s: time %v, want %v", rel, di.ModTime(), si.ModTime())
		}
		if si.IsDir() {
			if di.Mode().Perm() != si.Mode().Perm()|0o700 {
				t.Errorf("%s: folder mode %v, want %v", rel, di.Mode().Perm(), si.Mode().Perm()|0o700)
			}
			return nil
		}
		if di.Mode().Perm() != si.Mode().Perm() {
			t.Errorf("%s: mode %v, want %v", rel, di.Mode().Perm(), si.Mode().Perm())
		}
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(other)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: content differs (%d vs %d bytes)", rel, len(a), len(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(src)
	filepath.WalkDir(filepath.Join(dst, base), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dst, p)
		if !seen[rel] {
			t.Errorf("%s: at the receiver but not sent", rel)
		}
		return nil
	})
}

// listDir returns the names in dir, partial folder excluded.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		if d.Name() != partialDir {
			names = append(names, d.Name())
		}
	}
	return names
}
