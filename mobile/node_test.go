package mobile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/memprofile"
	"github.com/ferry-project/ferry/core/testkit"
)

const waitLong = 30 * time.Second

func newTestNode(t *testing.T, name string) (*Node, *recorder) {
	t.Helper()
	rec := newRecorder()
	return newTestNodeWith(t, name, rec), rec
}

// newTestNodeWith is newTestNode reporting to events. The Node is closed
// when the test ends.
func newTestNodeWith(t *testing.T, name string, events Events) *Node {
	t.Helper()
	cfg := NewConfig()
	cfg.Name = name
	cfg.DataDir = t.TempDir()
	n, err := NewNode(cfg, events)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// loopbackReceive returns receive options for a listener on loopback
// writing into a fresh folder.
func loopbackReceive(t *testing.T) *ReceiveOptions {
	opts := NewReceiveOptions()
	opts.Dir = t.TempDir()
	opts.Listen = "127.0.0.1:0"
	return opts
}

// sendHi starts sending the snippet "hi" from n to a receiver on
// loopback at port, with code.
func sendHi(t *testing.T, n *Node, port int, code string) *Transfer {
	t.Helper()
	so := NewSendOptions()
	so.Addr = "127.0.0.1:" + strconv.Itoa(port)
	so.Code = code
	so.ItemsJSON = `[{"text": "hi"}]`
	st, err := n.Send(so)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSendReceive drives both ends through the mobile API as two apps
// would: the receiver shows a code and accepts the offer from an "offer" event,
// the sender finds the receiver as a platform-reported peer.
func TestSendReceive(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA, recvEv := newTestNode(t, "Receiving phone")
	phoneB, sendEv := newTestNode(t, "Sending phone")

	opts := loopbackReceive(t)
	dst := opts.Dir
	rt, err := phoneA.Receive(opts)
	if err != nil {
		t.Fatal(err)
	}
	recvEv.onCall = func(c call) {
		if c.method == "offer" {
			if err := rt.Accept(); err != nil {
				t.Error(err)
			}
		}
	}
	adv := rt.Advertisement()

	found := NewPlatformPeer()
	found.InstanceName = adv.InstanceName
	found.Port = adv.Port
	found.Addrs = "127.0.0.1"
	found.TxtRecord = adv.TxtRecord
	if err := phoneB.PeerFound(found); err != nil {
		t.Fatal(err)
	}
	var peers []peer
	if err := json.Unmarshal([]byte(phoneB.Peers()), &peers); err != nil || len(peers) != 1 {
		t.Fatalf("peers = %v, %v", phoneB.Peers(), err)
	}
	if p := peers[0]; p.Name != "Receiving phone" || p.Fingerprint != phoneA.Fingerprint() || !p.Compatible {
		t.Fatalf("peer = %+v", p)
	}

	src := filepath.Join(t.TempDir(), "hello.txt")
	if err := os.WriteFile(src, []byte("hello, phone"), 0o644); err != nil {
		t.Fatal(err)
	}
	items, _ := json.Marshal([]map[string]string{{"path": src}, {"text": "a snippet", "name": "note.txt"}})
	so := NewSendOptions()
	so.Peer = peers[0].Key
	so.Code = rt.Code()
	so.ItemsJSON = string(items)
	st, err := phoneB.Send(so)
	if err != nil {
		t.Fatal(err)
	}

	end := sendEv.terminal(t, st.ID(), waitLong)
	if end.method != "done" {
		t.Fatalf("sender: %s; events %v", end.arg, sendEv.list())
	}
	end = recvEv.terminal(t, rt.ID(), waitLong)
	if end.method != "done" {
		t.Fatalf("receiver: %s; events %v", end.arg, recvEv.list())
	}
	if got, err := os.ReadFile(filepath.Join(dst, "hello.txt")); err != nil || string(got) != "hello, phone" {
		t.Fatalf("received %q, %v", got, err)
	}
	recvEv.wait(t, time.Second, func(c call) bool { return c.method == "text" && strings.Contains(c.arg, "a snippet") })
	recvEv.wait(t, time.Second, func(c call) bool { return c.method == "entry" && c.arg == "hello.txt received hello.txt" })
	js, err := rt.OfferEntriesJSON(0, 10)
	if err != nil || !strings.Contains(js, `"path":"hello.txt","kind":"file","size":12`) || !strings.Contains(js, `"path":"note.txt","kind":"text"`) {
		t.Fatalf("offer entries %s, %v", js, err)
	}
	if js, err := rt.OfferEntriesJSON(1, 1<<40); err != nil || strings.Contains(js, "hello.txt") || !strings.Contains(js, "note.txt") {
		t.Fatalf("offer entries from 1: %s, %v", js, err)
	}
	for _, ev := range []*recorder{sendEv, recvEv} {
		for _, id := range []int64{st.ID(), rt.ID()} {
			if n := ev.count(id, "done") + ev.count(id, "error"); n > 1 {
				t.Errorf("transfer %d ended %d times", id, n)
			}
		}
	}
	if err := rt.Accept(); err == nil {
		t.Error("accepting an ended transfer succeeded")
	}
	sendEv.checkSchema(t)
	recvEv.checkSchema(t)
	// core/app keeps the history, in DataDir, on both ends.
	for dir, n := range map[string]*Node{"received": phoneA, "sent": phoneB} {
		js, err := n.HistoryJSON(0, 10)
		var recs []map[string]any
		if err == nil {
			err = json.Unmarshal([]byte(js), &recs)
		}
		if err != nil || len(recs) != 1 || recs[0]["event"] != "history" || recs[0]["direction"] != dir ||
			recs[0]["outcome"] != "verified" || recs[0]["files"] != float64(1) {
			t.Errorf("%s's history: %s, %v", n.Name(), js, err)
		}
		if js, err := n.HistoryJSON(1, 10); err != nil || js != "[]" {
			t.Errorf("%s's history from 1: %s, %v", n.Name(), js, err)
		}
	}
}

// TestWrongCode: the sender is told the code was wrong, by kind.
func TestWrongCode(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA, recvEv := newTestNode(t, "A")
	phoneB, sendEv := newTestNode(t, "B")
	opts := loopbackReceive(t)
	opts.Code = "123456"
	rt, err := phoneA.Receive(opts)
	if err != nil {
		t.Fatal(err)
	}
	st := sendHi(t, phoneB, rt.Port(), "654321")
	end := sendEv.terminal(t, st.ID(), waitLong)
	if end.method != "error" || end.fail.Kind != KindWrongCode {
		t.Fatalf("sender ended %s(%s)", end.method, end.arg)
	}
	if err := rt.Cancel(); err != nil {
		t.Fatal(err)
	}
	end = recvEv.terminal(t, rt.ID(), waitLong)
	if end.method != "error" || end.fail.Kind != KindCancelled {
		t.Fatalf("receiver ended %s(%s)", end.method, end.arg)
	}
}

// TestDecline: a declined offer ends both sides with KindDeclined.
func TestDecline(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA, recvEv := newTestNode(t, "A")
	phoneB, sendEv := newTestNode(t, "B")
	rt, err := phoneA.Receive(loopbackReceive(t))
	if err != nil {
		t.Fatal(err)
	}
	recvEv.onCall = func(c call) {
		if c.method == "offer" {
			rt.Decline()
		}
	}
	st := sendHi(t, phoneB, rt.Port(), rt.Code())
	if end := sendEv.terminal(t, st.ID(), waitLong); end.method != "error" || end.fail.Kind != KindDeclined {
		t.Fatalf("sender ended %s(%s)", end.method, end.arg)
	}
	if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "error" || end.fail.Kind != KindDeclined {
		t.Fatalf("receiver ended %s(%s)", end.method, end.arg)
	}
}

// TestBusy: the profile's transfer limit holds, and Close cancels.
func TestBusyAndClose(t *testing.T) {
	testkit.CheckGoroutines(t)
	n, ev := newTestNode(t, "A")
	var ts []*Transfer
	for i := 0; i < n.profile.MaxTransfers; i++ {
		tr, err := n.Receive(loopbackReceive(t))
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tr)
	}
	opts := loopbackReceive(t)
	if _, err := n.Receive(opts); err == nil || !strings.Contains(err.Error(), "too many") {
		t.Fatalf("receive over the limit: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if end := ev.terminal(t, tr.ID(), time.Second); end.method != "error" || end.fail.Kind != KindCancelled {
			t.Fatalf("transfer %d ended %s(%s)", tr.ID(), end.method, end.arg)
		}
	}
	if _, err := n.Receive(opts); err == nil {
		t.Fatal("receive after close succeeded")
	}
}

// TestSendMany: one batch to two receivers, each its own transfer with
// its own number and end; the iOS profile's one transfer at a time
// refuses a batch of two, and a receiver list that is not one is an
// error.
func TestSendMany(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA1, recvEv1 := newTestNode(t, "A1")
	phoneA2, recvEv2 := newTestNode(t, "A2")
	sendEv := newRecorder()
	cfg := NewConfig()
	cfg.Name, cfg.DataDir = "B", t.TempDir()
	android := memprofile.Android
	cfg.profile = &android
	phoneB, err := NewNode(cfg, sendEv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { phoneB.Close() })

	var to []map[string]string
	var rts []*Transfer
	for _, n := range []*Node{phoneA1, phoneA2} {
		opts := loopbackReceive(t)
		opts.AutoAccept = true
		rt, err := n.Receive(opts)
		if err != nil {
			t.Fatal(err)
		}
		rts = append(rts, rt)
		to = append(to, map[string]string{"addr": "127.0.0.1:" + strconv.Itoa(rt.Port()), "code": rt.Code()})
	}
	js, _ := json.Marshal(to)
	so := NewSendOptions()
	so.ItemsJSON = `[{"text": "to you both"}]`
	so.ToJSON = string(js)
	b, err := phoneB.SendMany(so)
	if err != nil {
		t.Fatal(err)
	}
	if b.Count() != 2 || b.Transfer(2) != nil || b.Transfer(0).ID() == b.Transfer(1).ID() {
		t.Fatalf("batch of %d, ids %d and %d", b.Count(), b.Transfer(0).ID(), b.Transfer(1).ID())
	}
	for i := range 2 {
		if end := sendEv.terminal(t, b.Transfer(i).ID(), waitLong); end.method != "done" {
			t.Fatalf("sender to %d ended %s(%s)", i, end.method, end.arg)
		}
		if n := sendEv.count(b.Transfer(i).ID(), "connected"); n != 1 {
			t.Errorf("transfer %d: %d connected events, want 1", b.Transfer(i).ID(), n)
		}
	}
	for i, ev := range []*recorder{recvEv1, recvEv2} {
		ev.wait(t, waitLong, func(c call) bool { return c.method == "text" && c.id == rts[i].ID() && c.arg == "text.txt to you both" })
		if end := ev.terminal(t, rts[i].ID(), waitLong); end.method != "done" {
			t.Fatalf("receiver %d ended %s(%s)", i, end.method, end.arg)
		}
	}

	sendEv.checkSchema(t)
	ios, _ := newTestNode(t, "C")
	if _, err := ios.SendMany(so); err == nil || !strings.Contains(err.Error(), "too many") {
		t.Errorf("a batch of two on the iOS profile: %v", err)
	}
	for _, bad := range []string{"", "[]", `[{"addr": "127.0.0.1:1"}]`, `[{"adr": "127.0.0.1:1", "code": "1"}]`, `[{"peer": "nobody", "code": "1"}]`} {
		so.ToJSON = bad
		if _, err := phoneB.SendMany(so); err == nil {
			t.Errorf("receivers %q: no error", bad)
		}
	}
}

// TestWarning: a problem that costs a convenience, never a transfer
// (here a trust file that cannot be read), reaches the app as a
// "warning" event of transfer 0, and the Node works.
func TestWarning(t *testing.T) {
	testkit.CheckGoroutines(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trusted.json"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	cfg := NewConfig()
	cfg.Name, cfg.DataDir = "A", dir
	n, err := NewNode(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := rec.wait(t, waitLong, func(c call) bool { return c.method == "warning" })
	if c.id != 0 || !strings.Contains(c.arg, "trusted devices are off") {
		t.Errorf("warning %d %q", c.id, c.arg)
	}
	rec.checkSchema(t)
	if _, err := n.Receive(loopbackReceive(t)); err != nil {
		t.Errorf("receiving after the warning: %v", err)
	}
}

// TestPairAfterCode: after a transfer made with a code core/app advises
// asking each person whether to trust the other device; once both did
// (Pin), a send to the listed peer needs no code, the receiver accepts
// it unasked (AcceptTrusted), and its text may go to the clipboard
// unasked, where an untrusted sender's needs the person's yes.
func TestPairAfterCode(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA, recvEv := newTestNode(t, "A")
	phoneB, sendEv := newTestNode(t, "B")
	receive := func() *Transfer {
		opts := loopbackReceive(t)
		opts.AutoAccept, opts.AcceptTrusted = false, true
		rt, err := phoneA.Receive(opts)
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	first := receive()
	recvEv.onCall = func(c call) { // the second receive's offer nobody answers: only AcceptTrusted can
		if c.method == "offer" && c.id == first.ID() {
			first.Accept()
		}
	}
	rt, st := first, sendHi(t, phoneB, first.Port(), first.Code())
	for _, x := range []struct {
		ev *recorder
		tr *Transfer
	}{{sendEv, st}, {recvEv, rt}} {
		if end := x.ev.terminal(t, x.tr.ID(), waitLong); end.method != "done" {
			t.Fatalf("ended %s(%s)", end.method, end.arg)
		}
		if a := x.tr.PinAdvice(); a != "ask" {
			t.Fatalf("pin advice after a code: %q, want ask", a)
		}
	}
	if a, text := rt.ClipboardAdvice(), rt.ClipboardText(); a != "ask" || text != "hi" {
		t.Errorf("clipboard from an untrusted sender: %q %q, want ask hi", a, text)
	}
	if err := rt.Pin(); err != nil {
		t.Fatal(err)
	}
	if err := st.Pin(); err != nil {
		t.Fatal(err)
	}

	rt = receive()
	p := NewPlatformPeer()
	adv := rt.Advertisement()
	p.InstanceName, p.Port, p.Addrs, p.TxtRecord = adv.InstanceName, adv.Port, "127.0.0.1", adv.TxtRecord
	if err := phoneB.PeerFound(p); err != nil {
		t.Fatal(err)
	}
	so := NewSendOptions()
	so.Peer, so.ItemsJSON = p.InstanceName, `[{"text": "paired"}]`
	st, err := phoneB.Send(so)
	if err != nil {
		t.Fatal(err)
	}
	if end := sendEv.terminal(t, st.ID(), waitLong); end.method != "done" {
		t.Fatalf("paired send ended %s(%s)", end.method, end.arg)
	}
	if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "done" {
		t.Fatalf("paired receive ended %s(%s)", end.method, end.arg)
	}
	recvEv.wait(t, time.Second, func(c call) bool {
		return c.id == rt.ID() && c.method == "accepted" && strings.Contains(c.js, `"by":"trusted"`)
	})
	if rt.PinAdvice() != "" || st.PinAdvice() != "" {
		t.Errorf("pin advice after a paired transfer: %q %q", rt.PinAdvice(), st.PinAdvice())
	}
	if a, text := rt.ClipboardAdvice(), rt.ClipboardText(); a != "put" || text != "paired" {
		t.Errorf("clipboard from a trusted sender: %q %q, want put paired", a, text)
	}
	if err := st.Pin(); err == nil {
		t.Error("pinning after a paired transfer: no error")
	}
	// Without a code, an untrusted peer is refused before anything is sent.
	other, _ := newTestNode(t, "C")
	if err := other.PeerFound(p); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Send(so); err == nil || !strings.Contains(err.Error(), "not a trusted device") {
		t.Errorf("a send without a code to an untrusted peer: %v", err)
	}
}
