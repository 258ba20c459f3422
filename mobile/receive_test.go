package mobile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/memprofile"
	"github.com/ferry-project/ferry/core/testkit"
)

// newProfileNode is newTestNode with the memory profile p in place of
// the build's.
func newProfileNode(t *testing.T, name string, p memprofile.Profile) (*Node, *recorder) {
	t.Helper()
	rec := newRecorder()
	cfg := NewConfig()
	cfg.Name, cfg.DataDir, cfg.profile = name, t.TempDir(), &p
	n, err := NewNode(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, rec
}

// sendFile starts sending a file named name holding body from a node of
// its own to a receiver on loopback at port, with code.
func sendFile(t *testing.T, port int, code, name, body string) (*Transfer, *recorder) {
	t.Helper()
	n, rec := newTestNode(t, "sender "+name)
	src := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	items, _ := json.Marshal([]map[string]string{{"path": src}})
	so := NewSendOptions()
	so.Addr = "127.0.0.1:" + strconv.Itoa(port)
	so.Code, so.ItemsJSON = code, string(items)
	st, err := n.Send(so)
	if err != nil {
		t.Fatal(err)
	}
	return st, rec
}

// TestReceiveSeveral: on the Android profile one receive takes two
// senders at once, each a transfer of its own whose id (core/app's) is
// on every one of its events and answers its offer; a third sender,
// while both wait for an answer, is told busy; both files arrive.
func TestReceiveSeveral(t *testing.T) {
	testkit.CheckGoroutines(t)
	phone, ev := newProfileNode(t, "Android phone", memprofile.Android)
	opts := loopbackReceive(t)
	rt, err := phone.Receive(opts)
	if err != nil {
		t.Fatal(err)
	}
	if rt.ID() != 0 {
		t.Fatalf("a receive of several has ID %d, want 0", rt.ID())
	}
	// A code lets in one sender: the first one's handshake uses it up,
	// the next is told at once (code_changed, reason used), and the
	// second sender types that one.
	first := rt.Code()
	a, aEv := sendFile(t, rt.Port(), first, "a.txt", "from the first sender")
	offers := map[int64]bool{}
	o := ev.wait(t, waitLong, func(c call) bool { return c.method == "offer" })
	offers[o.id] = true
	used := ev.wait(t, waitLong, func(c call) bool { return c.method == "code_changed" })
	if used.arg != rt.Code() || used.arg == first {
		t.Fatalf("code_changed(%s) after the first sender's offer; Code() %s, first %s", used.arg, rt.Code(), first)
	}
	b, bEv := sendFile(t, rt.Port(), rt.Code(), "b.txt", "from the second sender")
	for len(offers) < 2 {
		c := ev.wait(t, waitLong, func(c call) bool { return c.method == "offer" && !offers[c.id] })
		offers[c.id] = true
	}
	// Both offers are open at once: a third sender is one too many.
	c, cEv := sendFile(t, rt.Port(), rt.Code(), "c.txt", "one too many")
	if end := cEv.terminal(t, c.ID(), waitLong); end.method != "error" || end.fail.Kind != KindBusy {
		t.Fatalf("third sender ended %s(%s)", end.method, end.arg)
	}
	if err := rt.Accept(); err == nil {
		t.Fatal("Accept without an id took an offer of a receive of several")
	}
	// Each sender's offer is listed by its own id.
	listed := map[string]bool{}
	for id := range offers {
		js, err := rt.OfferEntriesJSONOf(id, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var entries []struct{ Path string }
		if err := json.Unmarshal([]byte(js), &entries); err != nil || len(entries) != 1 {
			t.Fatalf("offer entries of %d: %s (%v), want one", id, js, err)
		}
		listed[entries[0].Path] = true
	}
	if !listed["a.txt"] || !listed["b.txt"] {
		t.Fatalf("the two offers list %v, want a.txt and b.txt", listed)
	}
	if js, err := rt.OfferEntriesJSONOf(1<<40, 0, 10); err != nil || js != "[]" {
		t.Fatalf("entries of an unknown transfer: %s, %v", js, err)
	}
	for id := range offers {
		if id == 0 {
			t.Fatalf("an offer without a transfer id: %v", ev.list())
		}
		if err := rt.AcceptTransfer(id); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct {
		tr  *Transfer
		rec *recorder
	}{{a, aEv}, {b, bEv}} {
		if end := s.rec.terminal(t, s.tr.ID(), waitLong); end.method != "done" {
			t.Fatalf("sender ended %s(%s)", end.method, end.arg)
		}
	}
	for id := range offers {
		if end := ev.terminal(t, id, waitLong); end.method != "done" {
			t.Fatalf("transfer %d ended %s(%s)", id, end.method, end.arg)
		}
		checkOneTransfer(t, ev, id)
	}
	for name, want := range map[string]string{"a.txt": "from the first sender", "b.txt": "from the second sender"} {
		if got, err := os.ReadFile(filepath.Join(opts.Dir, name)); err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v", name, got, err)
		}
	}
	if err := rt.AcceptTransfer(1 << 40); err == nil {
		t.Fatal("accepting an unknown transfer succeeded")
	}
	if err := rt.Cancel(); err != nil {
		t.Fatal(err)
	}
	if end := ev.terminal(t, 0, waitLong); end.method != "error" || end.fail.Kind != KindCancelled {
		t.Fatalf("receive ended %s(%s)", end.method, end.arg)
	}
}

// checkOneTransfer checks that a sender's transfer id names one whole
// story: it starts with "connected", has one "offer" and ends once.
func checkOneTransfer(t *testing.T, ev *recorder, id int64) {
	t.Helper()
	var methods []string
	ev.mu.Lock()
	for _, c := range ev.calls {
		if c.id == id {
			methods = append(methods, c.method)
		}
	}
	ev.mu.Unlock()
	if len(methods) < 3 || methods[0] != "connected" || ev.count(id, "offer") != 1 || ev.count(id, "done") != 1 {
		t.Fatalf("transfer %d's events: %v", id, methods)
	}
}

// TestReceiveOneOnIOS: the iOS profile's receive takes one sender; a
// second, while the first waits for an answer, is told busy; asking for
// more than the device allows is an error.
func TestReceiveOneOnIOS(t *testing.T) {
	testkit.CheckGoroutines(t)
	phone, ev := newProfileNode(t, "iPhone", memprofile.IOS)
	opts := loopbackReceive(t)
	opts.MaxTransfers = 2
	if _, err := phone.Receive(opts); err == nil {
		t.Fatal("a receive of 2 at once on iOS started")
	}
	opts.MaxTransfers = 0
	rt, err := phone.Receive(opts)
	if err != nil {
		t.Fatal(err)
	}
	sendFile(t, rt.Port(), rt.Code(), "a.txt", "first")
	ev.wait(t, waitLong, func(c call) bool { return c.method == "offer" && c.id == rt.ID() })
	b, bEv := sendFile(t, rt.Port(), rt.Code(), "b.txt", "second")
	if end := bEv.terminal(t, b.ID(), waitLong); end.method != "error" || end.fail.Kind != KindBusy {
		t.Fatalf("second sender ended %s(%s)", end.method, end.arg)
	}
	if err := rt.Cancel(); err != nil {
		t.Fatal(err)
	}
	if end := ev.terminal(t, rt.ID(), waitLong); end.method != "error" || end.fail.Kind != KindCancelled {
		t.Fatalf("receive ended %s(%s)", end.method, end.arg)
	}
}

// TestReceiveSeveralAnswers: in a receive of several, DeclineTransfer
// and CancelTransfer end the one transfer they name, on both sides, and
// the receive goes on to take the next sender. core/app ends a transfer
// cancelled while its offer waits for an answer as declined
// ("declined the offer ...: transfer cancelled"), so either kind is
// CancelTransfer's here.
func TestReceiveSeveralAnswers(t *testing.T) {
	testkit.CheckGoroutines(t)
	phone, ev := newProfileNode(t, "Android phone", memprofile.Android)
	rt, err := phone.Receive(loopbackReceive(t))
	if err != nil {
		t.Fatal(err)
	}
	a, aEv := sendFile(t, rt.Port(), rt.Code(), "a.txt", "declined")
	aID := ev.wait(t, waitLong, func(c call) bool { return c.method == "offer" }).id
	b, bEv := sendFile(t, rt.Port(), rt.Code(), "b.txt", "cancelled")
	bID := ev.wait(t, waitLong, func(c call) bool { return c.method == "offer" && c.id != aID }).id
	if err := rt.DeclineTransfer(aID); err != nil {
		t.Fatal(err)
	}
	if err := rt.CancelTransfer(bID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		id, sid int64
		rec     *recorder
		kinds   string
	}{{aID, a.ID(), aEv, KindDeclined}, {bID, b.ID(), bEv, KindDeclined + " " + KindCancelled}} {
		if end := ev.terminal(t, s.id, waitLong); end.method != "error" || end.fail.Kind == "" || !strings.Contains(s.kinds, end.fail.Kind) {
			t.Fatalf("transfer %d ended %s(%s), want %s", s.id, end.method, end.arg, s.kinds)
		}
		if end := s.rec.terminal(t, s.sid, waitLong); end.method != "error" || end.fail.Kind == "" || !strings.Contains(s.kinds, end.fail.Kind) {
			t.Fatalf("its sender ended %s(%s), want %s", end.method, end.arg, s.kinds)
		}
	}
	if err := rt.AcceptTransfer(aID); err == nil {
		t.Fatal("accepting an ended transfer succeeded")
	}
	c, cEv := sendFile(t, rt.Port(), rt.Code(), "c.txt", "the next one")
	cID := ev.wait(t, waitLong, func(c call) bool { return c.method == "offer" && c.id != aID && c.id != bID }).id
	if err := rt.AcceptTransfer(cID); err != nil {
		t.Fatal(err)
	}
	if end := cEv.terminal(t, c.ID(), waitLong); end.method != "done" {
		t.Fatalf("the next sender ended %s(%s)", end.method, end.arg)
	}
	rt.Cancel()
	if end := ev.terminal(t, 0, waitLong); end.method != "error" || end.fail.Kind != KindCancelled {
		t.Fatalf("receive ended %s(%s)", end.method, end.arg)
	}
}
