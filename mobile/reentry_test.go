package mobile

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// peerKeys lists the keys in a peer list, comma-separated, in its order.
func peerKeys(js string) string {
	var list []peer
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		return "bad list: " + err.Error()
	}
	keys := make([]string, len(list))
	for i, p := range list {
		keys[i] = p.Key
	}
	return strings.Join(keys, ",")
}

func testPlatformPeer(name string) *PlatformPeer {
	p := NewPlatformPeer()
	p.InstanceName, p.Port, p.Addrs = name, 1, "127.0.0.1"
	return p
}

// collect gathers what a callback's calls returned, for the test to read
// once the callback is done.
type collect struct {
	mu   sync.Mutex
	errs []error
	done chan struct{}
}

func newCollect() *collect { return &collect{done: make(chan struct{})} }

func (c *collect) add(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// wait waits for done to be closed and returns the errors gathered.
func (c *collect) wait(t *testing.T, what string) error {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(waitShort):
		t.Fatalf("%s from inside a callback did not return: deadlock", what)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

// TestPeersCallbackReentry: from inside a "peers" event an app changes the list
// and calls the Node's other methods; every call returns, and the lists
// keep coming, the last one the list as it is.
func TestPeersCallbackReentry(t *testing.T) {
	testkit.CheckGoroutines(t)
	n, rec := newTestNode(t, "A")
	fb := newFakeBrowse(t, false)
	n.browseFn = fb.browse

	var once sync.Once
	got := newCollect()
	rec.onCall = func(c call) {
		if c.method != "peers" {
			return
		}
		once.Do(func() {
			defer close(got.done)
			got.add(n.PeerFound(testPlatformPeer("second")))
			got.add(n.PeerLost("first"))
			got.add(n.StartBrowse(""))
			got.add(n.StopBrowse())
			got.add(n.ForgetPlatformPeers())
			got.add(n.PeerFound(testPlatformPeer("third")))
			_ = n.Peers()
		})
	}
	first := newCollect()
	go func() {
		defer close(first.done)
		first.add(n.PeerFound(testPlatformPeer("first")))
	}()
	if err := first.wait(t, "PeerFound"); err != nil {
		t.Fatal(err)
	}
	if err := got.wait(t, "changing the peer list"); err != nil {
		t.Fatal(err)
	}
	fb.next(t) // StartBrowse from the callback did start a browse
	rec.wait(t, waitShort, hasPeers("third"))
	if keys := peerKeys(n.Peers()); keys != "third" {
		t.Fatalf("list %q, want third", keys)
	}
}

// TestCloseFromPeersCallback: an app that closes the Node from a "peers" event,
// on the browse's news, gets Close back; the Node is closed.
func TestCloseFromPeersCallback(t *testing.T) {
	testkit.CheckGoroutines(t)
	n, rec := newTestNode(t, "A")
	fb := newFakeBrowse(t, false)
	n.browseFn = fb.browse

	got := newCollect()
	var once sync.Once
	rec.onCall = func(c call) {
		if c.method == "peers" {
			once.Do(func() {
				defer close(got.done)
				got.add(n.Close())
			})
		}
	}
	if err := n.StartBrowse(""); err != nil {
		t.Fatal(err)
	}
	fb.next(t).report(t, testMDNSPeer("laptop"))
	if err := got.wait(t, "Close"); err != nil {
		t.Fatal(err)
	}
	if err := n.PeerFound(testPlatformPeer("late")); !errors.Is(err, errClosed) {
		t.Errorf("PeerFound after Close: %v", err)
	}
}

// TestOfferCallbackReentry: from inside an "offer" event an app cancels the
// transfer, or closes the Node; the call returns and the transfer ends
// with an "error" event, KindCancelled, on both sides. (Accepting and declining
// from an "offer" event are TestSendReceive and TestDecline.)
func TestOfferCallbackReentry(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(n *Node, tr *Transfer) error
	}{
		{"cancel", func(_ *Node, tr *Transfer) error { return tr.Cancel() }},
		{"close", func(n *Node, _ *Transfer) error { return n.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.CheckGoroutines(t)
			phoneA, recvEv := newTestNode(t, "A")
			phoneB, sendEv := newTestNode(t, "B")
			rt, err := phoneA.Receive(loopbackReceive(t))
			if err != nil {
				t.Fatal(err)
			}
			got := newCollect()
			recvEv.onCall = func(c call) {
				if c.method == "offer" {
					defer close(got.done)
					got.add(tc.act(phoneA, rt))
				}
			}
			st := sendHi(t, phoneB, rt.Port(), rt.Code())
			if err := got.wait(t, tc.name); err != nil {
				t.Fatal(err)
			}
			if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "error" || end.fail.Kind != KindCancelled {
				t.Fatalf("receiver ended %s(%s)", end.method, end.arg)
			}
			if end := sendEv.terminal(t, st.ID(), waitLong); end.method != "error" || end.fail.Kind != KindCancelled {
				t.Fatalf("sender ended %s(%s)", end.method, end.arg)
			}
		})
	}
}
