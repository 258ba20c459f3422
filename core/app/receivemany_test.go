//go:build !js

package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/secure"
)

// Three Nodes send to one receiver of up to three at once: each gets a
// Transfer of its own with its own events, their questions are answered
// in the reverse of the order they came (one declined), a fourth sender
// is told busy with the count, a wrong code during the transfers counts
// against the Node's one budget, and the history holds each transfer.
func TestReceiveMany(t *testing.T) {
	recvNode := namedNode(t, "desk")
	rec := newRecorder()
	rc := listen(t, recvNode, rec, ReceiveConfig{MaxConcurrent: 3, KeepTexts: true, Code: "314159"}) // fixed: a picked code lets in one sender
	if _, err := rc.Receive(t.Context()); err == nil {
		t.Error("Receive on a receiver of several senders did not fail")
	}
	served := make(chan error, 1)
	go func() { served <- rc.ReceiveMany(t.Context()) }()

	code := rc.Code()
	names := []string{"ann", "bob", "cy"}
	sends := make([]*Transfer, len(names))
	dir := t.TempDir()
	for i, name := range names {
		src := filepath.Join(dir, name, "photo.jpg")
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src, []byte("from "+name), 0o644); err != nil {
			t.Fatal(err)
		}
		sends[i] = namedNode(t, name).Send(t.Context(), SendConfig{Items: itemsOf(src), Paths: []string{src},
			Addrs: []string{addrOf(rc)}, Code: code})
	}
	// All three offers are open at once before any is answered.
	asked := map[string]*Transfer{}
	for range names {
		tr := <-rec.offers
		rec.mu.Lock()
		c := rec.events[tr.ID()][0].(event.Connected)
		rec.mu.Unlock()
		if asked[c.PeerName] != nil {
			t.Fatalf("two offers from %s", c.PeerName)
		}
		asked[c.PeerName] = tr
	}
	// A fourth is busy, told that three are in progress.
	err := namedNode(t, "dee").Send(t.Context(), SendConfig{Items: textItem("hi"), Addrs: []string{addrOf(rc)}, Code: code}).Wait().Err
	var busy *secure.BusyError
	if !errors.As(err, &busy) || busy.Running != 3 {
		t.Errorf("fourth sender: %v, want busy with 3 running", err)
	}
	asked["bob"].Decline("you said no")
	asked["bob"].Wait()
	// A wrong code while the other two wait counts against the Node's
	// one budget.
	before := recvNode.guessBudget().Wrong()
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	if err := sendText(t, namedNode(t, "eve").id, rc, wrong, "guess"); !errors.Is(err, secure.ErrWrongCode) {
		t.Errorf("wrong code: %v", err)
	}
	if got := recvNode.guessBudget().Wrong(); got != before+1 {
		t.Errorf("budget counts %d wrong codes, want %d", got, before+1)
	}
	asked["cy"].Accept()
	asked["ann"].Accept()
	for i, s := range sends {
		res := s.Wait()
		if declined := names[i] == "bob"; declined != (res.Err != nil) {
			t.Errorf("%s's send: %v", names[i], res.Err)
		}
	}
	ids := map[int64]bool{}
	for name, tr := range asked {
		res := tr.Wait()
		ids[tr.ID()] = true
		if res.Peer.Name != name {
			t.Errorf("transfer %d: peer %q, want %q", tr.ID(), res.Peer.Name, name)
		}
		if name == "bob" {
			var d *DeclinedError
			if !errors.As(res.Err, &d) || d.Reason != "you said no" {
				t.Errorf("bob's transfer: %v", res.Err)
			}
			continue
		}
		if res.Err != nil {
			t.Errorf("%s's transfer: %v", name, res.Err)
		}
		got := rec.types(tr)
		want := []string{"connected", "offer", "accepted", "entry", "done"}
		if !sameWithout(sameWithout2(got, "code_changed"), want, "progress") {
			t.Errorf("%s's events %v, want %v", name, got, want)
		}
	}
	if len(ids) != 3 {
		t.Errorf("transfer ids %v, want three", ids)
	}
	// Same names from two senders: photo.jpg and "photo (1).jpg".
	var saved []string
	for _, e := range must(os.ReadDir(rc.Dir())) {
		saved = append(saved, e.Name())
	}
	slices.Sort(saved)
	if !slices.Equal(saved, []string{"photo (1).jpg", "photo.jpg"}) {
		t.Errorf("saved %v", saved)
	}
	recs, _, err := rawHistory(recvNode).List()
	if err != nil || len(recs) != 3 {
		t.Fatalf("history: %v %+v", err, recs)
	}
	outcomes := map[string]history.Outcome{}
	for _, r := range recs {
		outcomes[r.Peer.Name] = r.Outcome
	}
	if outcomes["ann"] != history.Verified || outcomes["cy"] != history.Verified || outcomes["bob"] == history.Verified {
		t.Errorf("history outcomes %v", outcomes)
	}
	if err := rc.Close(); err != nil {
		t.Error(err)
	}
	if err := <-served; err != nil {
		t.Errorf("ReceiveMany after Close: %v", err)
	}
}

func sameWithout2(got []string, skip string) []string {
	return slices.DeleteFunc(slices.Clone(got), func(s string) bool { return s == skip })
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
