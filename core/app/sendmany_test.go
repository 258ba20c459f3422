//go:build !js

package app

import (
	"errors"
	"sync"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/history"
)

// SendMany to a real receiver and to one that could not be resolved
// (Target.Err): the second never dials, ends with its Err beside the
// first, and is recorded as a failed send to the address it was named
// by. Index names each transfer's receiver from its first event on, and
// OnEnded tells the live one's end once its events before it are out.
func TestSendManyTargetErrAndEnded(t *testing.T) {
	a, s := namedNode(t, "a"), namedNode(t, "s")
	rcA := listen(t, a, newRecorder(), ReceiveConfig{AcceptAll: true})
	if _, err := rcA.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	notFound := errkind.New(errkind.NoSuchDevice, "no receiver named attic")
	var (
		mu      sync.Mutex
		byIndex = map[int][]string{}
		ends    []string
	)
	m := s.SendMany(t.Context(), ManyConfig{Items: textItem("hi"), Text: true,
		OnEvent: func(tr *Transfer, ev event.Event) {
			mu.Lock()
			defer mu.Unlock()
			byIndex[tr.Index()] = append(byIndex[tr.Index()], ev.Type())
		},
		OnEnded: func(tr *Transfer, sum event.Summary, err error) {
			mu.Lock()
			defer mu.Unlock()
			got := byIndex[tr.Index()]
			if err != nil || sum.Bytes != 2 || len(got) == 0 || got[len(got)-1] == "done" {
				t.Errorf("receiver %d ended with %v, %d bytes, after %v", tr.Index(), err, sum.Bytes, got)
			}
			ends = append(ends, "ended")
		},
		To: []Target{
			{Addrs: []string{addrOf(rcA)}, Code: rcA.Code()},
			{Addrs: []string{"attic.local:1"}, PeerName: "attic", Err: notFound},
		}})
	res, _ := m.Wait()
	if res[0].Err != nil || !errors.Is(res[1].Err, notFound) {
		t.Fatalf("results: %v, %v", res[0].Err, res[1].Err)
	}
	mu.Lock()
	if len(ends) != 1 {
		t.Errorf("OnEnded told %d times, want once (the live receiver)", len(ends))
	}
	if got := byIndex[0]; got[0] != "connected" || got[len(got)-1] != "done" {
		t.Errorf("receiver 0's events %v", got)
	}
	if got := byIndex[1]; len(got) != 1 || got[0] != "error" {
		t.Errorf("receiver 1's events %v, want only its error", got)
	}
	mu.Unlock()
	recs, _, _ := rawHistory(s).List()
	var failed *history.Record
	for i := range recs {
		if recs[i].Outcome == history.Failed {
			failed = &recs[i]
		}
	}
	if len(recs) != 2 || failed == nil || failed.Peer.Name != "attic" || failed.Peer.Addr != "attic.local:1" ||
		failed.ErrorKind != string(errkind.NoSuchDevice) {
		t.Errorf("history: %+v", recs)
	}
}
