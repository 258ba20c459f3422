package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/history"
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
		recs, _, err := c.n.History().List()
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
	recs, _, _ := s.History().List()
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
}
