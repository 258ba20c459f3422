package mobile

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/testkit"
)

// waitShort bounds a wait for something that happens at once.
const waitShort = 10 * time.Second

// fakeBrowse stands in for core/app's Browse: each run is handed to
// the test, which makes it report peers and decides when it returns.
type fakeBrowse struct {
	runs chan *fakeRun
	// linger keeps a cancelled run going until the test ends it, as a
	// real browse goes on while its sockets close.
	linger bool

	mu  sync.Mutex
	all []*fakeRun
}

type fakeRun struct {
	cfg nearby.BrowseConfig
	do  chan func()
	end chan error
}

// newFakeBrowse makes a fakeBrowse whose runs all end when the test does,
// before the Node made earlier in the test is closed.
func newFakeBrowse(t *testing.T, linger bool) *fakeBrowse {
	f := &fakeBrowse{runs: make(chan *fakeRun, 16), linger: linger}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, r := range f.all {
			select {
			case r.end <- nil:
			default:
			}
		}
	})
	return f
}

func (f *fakeBrowse) browse(ctx context.Context, cfg nearby.BrowseConfig) error {
	r := &fakeRun{cfg: cfg, do: make(chan func()), end: make(chan error, 1)}
	f.mu.Lock()
	f.all = append(f.all, r)
	f.mu.Unlock()
	f.runs <- r
	done := ctx.Done()
	for {
		select {
		case fn := <-r.do:
			fn()
		case err := <-r.end:
			return err
		case <-done:
			if !f.linger {
				return nil
			}
			done = nil
		}
	}
}

// next returns the next run started.
func (f *fakeBrowse) next(t *testing.T) *fakeRun {
	t.Helper()
	select {
	case r := <-f.runs:
		return r
	case <-time.After(waitShort):
		t.Fatal("no browse started")
		return nil
	}
}

// none fails if a run was started and not taken with next.
func (f *fakeBrowse) none(t *testing.T) {
	t.Helper()
	select {
	case <-f.runs:
		t.Fatal("a browse started")
	default:
	}
}

// report makes the run say, on its own goroutine, that it sees peers.
func (r *fakeRun) report(t *testing.T, peers ...nearby.Peer) {
	t.Helper()
	done := make(chan struct{})
	select {
	case r.do <- func() { r.cfg.OnChange(peers); close(done) }:
	case <-time.After(waitShort):
		t.Fatal("the browse is gone")
	}
	select {
	case <-done:
	case <-time.After(waitShort):
		t.Fatal("reporting peers did not return: deadlock?")
	}
}

func testMDNSPeer(instance string) nearby.Peer {
	return nearby.Peer{Instance: instance, Name: instance, Fingerprint: testFP, Version: nearby.ProtocolVersion,
		Port: 4711, Addrs: []net.IP{net.ParseIP("10.0.0.2")}}
}

// hasPeers matches a "peers" event listing exactly the keys given.
func hasPeers(keys ...string) func(call) bool {
	return func(c call) bool { return c.method == "peers" && peerKeys(c.arg) == strings.Join(keys, ",") }
}

// TestStopStartBrowse: StopBrowse empties the list at once, StartBrowse
// right after it starts a new browse that lists the peer again, and the
// old browse, still winding down, changes nothing: not the list with
// what it hears late, not the new browse's state when it returns, and
// no failure is reported for it.
func TestStopStartBrowse(t *testing.T) {
	testkit.CheckGoroutines(t)
	n, rec := newTestNode(t, "A")
	fb := newFakeBrowse(t, true)
	n.browseFn = fb.browse

	if err := n.StartBrowse(""); err != nil {
		t.Fatal(err)
	}
	old := fb.next(t)
	oldRun := n.browsing
	old.report(t, testMDNSPeer("laptop"))
	rec.wait(t, waitShort, hasPeers("laptop"))

	from := rec.mark()
	if err := n.StopBrowse(); err != nil {
		t.Fatal(err)
	}
	if got := peerKeys(n.Peers()); got != "" {
		t.Fatalf("after StopBrowse the list holds %q", got)
	}
	if err := n.StartBrowse(""); err != nil {
		t.Fatal(err)
	}
	cur := fb.next(t)
	cur.report(t, testMDNSPeer("laptop"))
	rec.waitFrom(t, waitShort, from, hasPeers("laptop"))

	old.report(t, testMDNSPeer("ghost")) // heard while its sockets closed
	if got := peerKeys(n.Peers()); got != "laptop" {
		t.Fatalf("after the old browse's late news the list holds %q", got)
	}
	old.end <- errors.New("socket closed")
	select {
	case <-oldRun.done:
	case <-time.After(waitShort):
		t.Fatal("the old browse's goroutine did not end")
	}
	if got := peerKeys(n.Peers()); got != "laptop" {
		t.Fatalf("after the old browse returned the list holds %q", got)
	}
	if err := n.StartBrowse(""); err != nil {
		t.Fatal(err)
	}
	fb.none(t) // the new browse is still the one running
	cur.report(t, testMDNSPeer("laptop"), testMDNSPeer("phone"))
	rec.waitFrom(t, waitShort, from, hasPeers("laptop", "phone"))
	if c := rec.count(0, "error"); c != 0 {
		t.Errorf("%d browse failures reported: %v", c, rec.list())
	}
}

// TestBrowseFails: a browse that fails on its own says so with
// KindBrowse, takes its peers with it, and the next StartBrowse starts
// afresh.
func TestBrowseFails(t *testing.T) {
	testkit.CheckGoroutines(t)
	n, rec := newTestNode(t, "A")
	fb := newFakeBrowse(t, false)
	n.browseFn = fb.browse

	if err := n.StartBrowse(""); err != nil {
		t.Fatal(err)
	}
	r := fb.next(t)
	r.report(t, testMDNSPeer("laptop"))
	rec.wait(t, waitShort, hasPeers("laptop"))
	from := rec.mark()
	r.end <- errors.New("interface went away")
	c := rec.waitFrom(t, waitShort, from, func(c call) bool { return c.method == "error" })
	if c.id != 0 || c.fail.Kind != KindBrowse || !strings.Contains(c.fail.Message, "interface went away") {
		t.Fatalf("failure %d %+v", c.id, c.fail)
	}
	rec.waitFrom(t, waitShort, from, hasPeers())
	if err := n.StartBrowse(""); err != nil {
		t.Fatal(err)
	}
	fb.next(t).report(t, testMDNSPeer("laptop"))
	rec.waitFrom(t, waitShort, from, hasPeers("laptop"))
}
