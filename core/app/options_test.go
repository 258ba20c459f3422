//go:build !js

package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// An app renames its device while the Node lives (SetName): the next
// send carries the new name. Its "Record new transfers" box
// (KeepHistory) turned off, the sender records nothing, while the
// receiver, which keeps its history, records the transfer.
func TestSetNameAndKeepHistory(t *testing.T) {
	recv := newNode(t)
	rec := newRecorder()
	rc := listen(t, recv, rec, ReceiveConfig{AcceptAll: true})
	tr, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	keep := false
	send, err := New(Config{Name: "laptop", ConfigDir: t.TempDir(), KeepHistory: func() bool { return keep },
		OnWarning: func(err error) { t.Errorf("warning: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer send.Close()
	send.SetName("renamed laptop")
	if send.Name() != "renamed laptop" {
		t.Fatalf("Name after SetName: %q", send.Name())
	}
	sent := send.Send(t.Context(), SendConfig{Addrs: []string{addrOf(rc)}, Code: rc.Code(), Items: []event.Item{{Text: "hi"}}, Text: true}).Wait()
	if sent.Err != nil {
		t.Fatalf("send: %v", sent.Err)
	}
	if res := tr.Wait(); res.Err != nil || res.Peer.Name != "renamed laptop" {
		t.Fatalf("received from %q: %v", res.Peer.Name, res.Err)
	}
	if recs, _, err := rawHistory(send).List(); err != nil || len(recs) != 0 {
		t.Errorf("the sender recorded with KeepHistory false: %v %+v", err, recs)
	}
	if recs, _, err := rawHistory(recv).List(); err != nil || len(recs) != 1 || recs[0].Peer.Name != "renamed laptop" || recs[0].Outcome != history.Verified {
		t.Errorf("the receiver's history: %v %+v", err, recs)
	}
}

// With KeepWaiting (an app with a New code button), a budget spent by
// live guessing does not end the wait: CodesStopped is told, the
// transfer still waits, a trusted device still gets through without a
// code, and Receive is allowed after it (TestKeepWaitingWhenStopped
// starts spent and takes a code after NewCode).
func TestKeepWaitingPaired(t *testing.T) {
	clock := testkit.NewClock()
	n, err := New(Config{Name: "desk", ConfigDir: t.TempDir(), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	rec := newRecorder()
	rc := listen(t, n, rec, ReceiveConfig{AcceptAll: true, KeepWaiting: true})
	tr, err := rc.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	guesser := testid.New(t)
	for i := 0; !rc.CodesStopped(); i++ {
		if i == 40 {
			t.Fatal("40 wrong codes and the codes have not stopped")
		}
		clock.Add(time.Minute)
		if err := sendText(t, guesser, rc, "000001", "x"); err == nil {
			t.Fatal("a wrong code got through")
		}
	}
	select {
	case <-tr.Done():
		t.Fatalf("the wait ended once the codes stopped: %v", tr.Wait().Err)
	default:
	}
	paired := testid.New(t)
	if _, _, err := n.Pin(stores.Device{Name: "phone", Key: paired.Public()}); err != nil {
		t.Fatal(err)
	}
	_, err = send.Send(t.Context(), send.SendConfig{Addrs: []string{addrOf(rc)}, PeerKey: n.Identity().Public(),
		Identity: paired, Name: "phone", Items: []event.Item{{Text: "paired"}}})
	if err != nil {
		t.Fatalf("a trusted device once the codes stopped: %v", err)
	}
	if res := tr.Wait(); res.Err != nil || !res.Paired {
		t.Fatalf("result: %+v", res)
	}
	if _, err := rc.Receive(t.Context()); err != nil {
		t.Errorf("Receive once the codes stopped: %v", err)
	}
	stopped := false
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, ev := range append(rec.loose, rec.events[tr.ID()]...) {
		if _, ok := ev.(event.CodesStopped); ok {
			stopped = true
		}
	}
	if !stopped {
		t.Error("no CodesStopped event")
	}
}

// A history that cannot be written costs the record, never the
// transfer: the warning is a *HistoryError, worded as before.
func TestHistoryErrorWarned(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "history.json"), 0o700); err != nil { // a folder where the file goes
		t.Fatal(err)
	}
	var mu sync.Mutex
	var warned []error
	n, err := New(Config{Name: "laptop", ConfigDir: dir, OnWarning: func(err error) {
		mu.Lock()
		warned = append(warned, err)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	res := n.Send(t.Context(), SendConfig{Addrs: []string{"127.0.0.1:1"}, Code: "123456", Items: []event.Item{{Text: "x"}}}).Wait()
	if res.Err == nil {
		t.Fatal("a send to a closed port succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	var he *HistoryError
	if len(warned) != 1 || !errors.As(warned[0], &he) || he.Err == nil ||
		!strings.HasPrefix(warned[0].Error(), "this transfer is not in the history: ") {
		t.Fatalf("warnings %v, want one *HistoryError", warned)
	}
}
