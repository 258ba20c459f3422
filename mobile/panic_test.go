package mobile

import (
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestZeroValuesDoNotPanic: gobind lets the app make zero-valued
// objects (new Transfer(), MobileNode()); no method may panic on one.
func TestZeroValuesDoNotPanic(t *testing.T) {
	var n Node
	if n.Fingerprint() != "" || n.Name() != "" || n.Peers() != "" {
		t.Error("zero node answered")
	}
	if _, err := n.Receive(NewReceiveOptions()); err == nil {
		t.Error("zero node received")
	}
	if _, err := n.Receive(&ReceiveOptions{Dir: t.TempDir()}); err == nil {
		t.Errorf("zero node: %v", err)
	}
	if err := n.PeerFound(&PlatformPeer{InstanceName: "x", Port: 1, Addrs: "127.0.0.1"}); err == nil {
		t.Error("zero node took a peer")
	}
	var tr Transfer
	if tr.ID() != 0 || tr.Code() != "" || tr.Port() != 0 || tr.Advertisement() != nil {
		t.Error("zero transfer answered")
	}
	for name, f := range map[string]func() error{"accept": tr.Accept, "decline": tr.Decline, "cancel": tr.Cancel} {
		if err := f(); err == nil {
			t.Errorf("zero transfer: %s succeeded", name)
		}
	}
	if js, err := tr.OfferEntriesJSON(-5, 1<<40); err != nil || js != "[]" {
		t.Errorf("zero transfer's offer entries %q, %v", js, err)
	}
	if _, err := n.HistoryJSON(0, 1); err == nil {
		t.Error("zero node read a history")
	}
	var b Batch
	if b.Count() != 0 || b.Transfer(0) != nil || b.Cancel() == nil {
		t.Error("zero batch answered")
	}
	if _, err := n.SendMany(&SendOptions{ItemsJSON: `[{"text": "x"}]`, ToJSON: `[{"addr": "127.0.0.1:1", "code": "1"}]`}); err == nil {
		t.Error("zero node sent")
	}
}

// TestGoroutinePanicReported: a panic on a goroutine the Node owns ends
// up in an "error" event as KindInternal, with its stack, and not in a crash.
func TestGoroutinePanicReported(t *testing.T) {
	testkit.CheckGoroutines(t)
	n, ev := newTestNode(t, "A")
	n.mu.Lock()
	n.wg.Add(1)
	n.mu.Unlock()
	n.run("testing", func() { panic("boom") }, func(err error) {
		n.tell(7, failureOf(err))
	})
	c := ev.terminal(t, 7, 5*time.Second)
	if c.fail.Kind != KindInternal || !strings.Contains(c.fail.Message, "boom") || !strings.Contains(c.fail.Message, "goroutine") {
		t.Fatalf("failure %+v", c.fail)
	}
}

// TestCallbackPanicContained: a panicking Events implementation takes
// down neither the goroutine that calls it nor the calls behind it.
func TestCallbackPanicContained(t *testing.T) {
	testkit.CheckGoroutines(t)
	rec := newRecorder()
	n := newTestNodeWith(t, "A", panicky{rec})
	for _, name := range []string{"first", "second"} {
		p := NewPlatformPeer()
		p.InstanceName, p.Port, p.Addrs = name, 1, "127.0.0.1"
		if err := n.PeerFound(p); err != nil {
			t.Fatal(err)
		}
	}
	rec.wait(t, 5*time.Second, func(c call) bool { return c.method == "peers" && strings.Contains(c.arg, "second") })
}

// panicky is an app that panics once it has recorded each event.
type panicky struct{ *recorder }

func (p panicky) OnEvent(js string) {
	p.recorder.OnEvent(js)
	panic("app bug")
}
