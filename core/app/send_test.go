//go:build !js

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

func namedNode(t *testing.T, name string) *Node {
	t.Helper()
	n, err := New(Config{Name: name, ConfigDir: t.TempDir(), OnWarning: func(err error) { t.Errorf("warning: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// Send between two Nodes: the sender's events end with Done, both
// histories hold the transfer once, each naming the other.
func TestSend(t *testing.T) {
	recvNode, sendNode := namedNode(t, "desk"), namedNode(t, "phone")
	rec := newRecorder()
	rc := listen(t, recvNode, rec, ReceiveConfig{AcceptAll: true})
	incoming, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(src, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	sent := newRecorder()
	tr := sendNode.Send(t.Context(), SendConfig{Items: itemsOf(src), Paths: []string{src}, Addrs: []string{addrOf(rc)},
		Code: rc.Code(), OnEvent: sent.on})
	res := tr.Wait()
	if res.Err != nil || res.Peer.Name != "desk" {
		t.Fatalf("send: %+v", res)
	}
	if got := sent.types(tr); got[0] != "connected" || got[len(got)-1] != "done" {
		t.Errorf("sender's events %v", got)
	}
	if r := incoming.Wait(); r.Err != nil {
		t.Fatalf("receive: %v", r.Err)
	}
	for _, c := range []struct {
		n    *Node
		dir  history.Direction
		peer string
	}{{sendNode, history.Sent, "desk"}, {recvNode, history.Received, "phone"}} {
		recs, _, err := rawHistory(c.n).List()
		if err != nil || len(recs) != 1 || recs[0].Direction != c.dir || recs[0].Peer.Name != c.peer ||
			recs[0].Outcome != history.Verified || len(recs[0].Names) != 1 || recs[0].Names[0] != "a.txt" {
			t.Errorf("%s history: %v %+v", c.n.Name(), err, recs)
		}
	}
}

// SendMany to two receivers, one of which declines: one Transfer each,
// each ending with its own last event and result, each recorded.
func TestSendMany(t *testing.T) {
	a, b, s := namedNode(t, "a"), namedNode(t, "b"), namedNode(t, "s")
	recA, recB := newRecorder(), newRecorder()
	rcA := listen(t, a, recA, ReceiveConfig{AcceptAll: true})
	rcB := listen(t, b, recB, ReceiveConfig{Unattended: "nobody here"})
	for _, rc := range []*Receiver{rcA, rcB} {
		if _, err := rc.Receive(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	sent := newRecorder()
	m := s.SendMany(t.Context(), ManyConfig{Items: textItem("hi"), Text: true, OnEvent: sent.on, To: []Target{
		{Addrs: []string{addrOf(rcA)}, Code: rcA.Code()}, {Addrs: []string{addrOf(rcB)}, Code: rcB.Code()}}})
	res, _ := m.Wait()
	if res[0].Err != nil || res[1].Err == nil {
		t.Fatalf("results: %v, %v", res[0].Err, res[1].Err)
	}
	for i, want := range []string{"done", "error"} {
		got := sent.types(m.Transfers[i])
		if got[len(got)-1] != want {
			t.Errorf("receiver %d: events %v, want the last %s", i, got, want)
		}
	}
	recs, _, _ := rawHistory(s).List()
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
}

// AfterCode then Pin make a peer trusted; TrustOf then says so of it as
// discovery finds it, and flags its name advertised with another key.
func TestPinThenTrustOf(t *testing.T) {
	n := namedNode(t, "desk")
	peer := testid.New(t)
	res := Result{Peer: stores.Device{Name: "laptop", Key: peer.Public()}}
	step, err := n.AfterCode(res, false, true)
	if err != nil || step.Do != PinAsk {
		t.Fatalf("after a code, a person to ask: %+v %v", step, err)
	}
	if step, _ := n.AfterCode(Result{Peer: res.Peer, WrongCodes: 2}, true, false); step.Do != PinRefused {
		t.Errorf("wrong codes, nobody to ask, --trust: %v, want PinRefused", step.Do)
	}
	if _, _, err := n.Pin(step.Peer); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := n.TrustOf(nearby.Peer{Name: "laptop", Fingerprint: peer.Fingerprint()}); st != stores.TrustTrusted {
		t.Errorf("the pinned device: %v", st)
	}
	if st, _, _ := n.TrustOf(nearby.Peer{Name: "laptop", Fingerprint: testid.New(t).Fingerprint()}); st != stores.TrustKeyChanged {
		t.Errorf("its name with another key: %v", st)
	}
	if step, _ := n.AfterCode(res, true, true); step.Do != PinNothing {
		t.Errorf("already trusted: %v", step.Do)
	}
	if step.Named.Key != nil {
		t.Errorf("a first pairing names a trusted device it is not: %+v", step.Named)
	}
	// Another key under the trusted name: asking to trust it must say it
	// is not that device.
	other := Result{Peer: stores.Device{Name: "Laptop", Key: testid.New(t).Public()}}
	if step, _ := n.AfterCode(other, false, true); step.Do != PinAsk || !bytes.Equal(step.Named.Key, peer.Public()) {
		t.Errorf("a trusted name with another key: %v, named %+v", step.Do, step.Named)
	}
}
