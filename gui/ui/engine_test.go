package ui

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
)

// These tests run real transfers over loopback between the UI and
// another device, a core/app Node in the same process. No discovery runs.

// peerPolicy is how a peer receiver answers offers.
type peerPolicy int

const (
	peerAsks     peerPolicy = iota // asks, and nobody answers: the offer waits
	peerAccepts                    // accepts every offer unasked
	peerDeclines                   // declines every offer, unattended
)

// peerReceiver is a real receiver on 127.0.0.1, a Node called "Peer
// box" waiting for one sender, served on a goroutine the test owns.
type peerReceiver struct {
	id     nodeKey
	r      *app.Receiver
	dir    string
	events chan event.Event
	done   chan error
	cancel context.CancelFunc
}

func startPeerReceiver(t *testing.T, policy peerPolicy) *peerReceiver {
	t.Helper()
	n := testNode(t, app.Config{Name: "Peer box", NoHistory: true})
	p := &peerReceiver{id: nodeKey{n}, dir: t.TempDir(), events: make(chan event.Event, 1024), done: make(chan error, 1)}
	cfg := app.ReceiveConfig{
		Dir: p.dir, Listen: "127.0.0.1:0", AcceptAll: policy == peerAccepts,
		OnEvent: func(_ *app.Transfer, ev event.Event) {
			select {
			case p.events <- ev:
			default:
			}
		},
	}
	if policy == peerDeclines {
		cfg.Unattended = "the peer declines every offer"
	}
	var err error
	p.r, err = n.Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	tr, err := p.r.Receive(ctx)
	if err != nil {
		cancel()
		p.r.Close()
		t.Fatal(err)
	}
	go func() { p.done <- tr.Wait().Err }()
	t.Cleanup(func() {
		cancel()
		<-p.done
		p.r.Close()
	})
	return p
}

func (p *peerReceiver) addr() string { return "127.0.0.1:" + strconv.Itoa(p.r.Port()) }

// fill chooses addr and types code in the Send view.
func (h *harness) fill(addr, code string) {
	v := h.u.send
	h.loop.run(func() {
		test.Type(v.addr, addr)
		test.Tap(v.addAddr)
		v.code.SetText("")
		test.Type(v.code, code)
	})
}

func (h *harness) sendState() panelState {
	var s panelState
	h.loop.run(func() { s = h.u.send.prog.state })
	return s
}

func TestSendVerifiedToRealReceiver(t *testing.T) {
	peer := startPeerReceiver(t, peerAccepts)
	h := newHarness(t, noReceive)
	src := t.TempDir()
	a := writeFile(t, src, "report.pdf", 300_000)
	writeFile(t, src, "album/one.jpg", 70_000)
	writeFile(t, src, "album/two.jpg", 0)
	h.drop(a, filepath.Join(src, "album"))
	h.fill(peer.addr(), peer.r.Code())
	h.waitFor("Send to be enabled", func() bool { return !h.u.send.sendBtn.Disabled() })
	h.tap(h.u.send.sendBtn)

	h.waitFor("the result", func() bool { return h.u.send.prog.state != stateRunning })
	h.check(func() bool {
		p := h.u.send.prog
		if p.state != stateVerified {
			t.Errorf("send failed: %s / %s / %s", p.headline.Text, p.advice.Text, p.detail.Text)
			return false
		}
		if p.headline.Text != "All 3 files sent and verified" {
			t.Errorf("headline %q", p.headline.Text)
		}
		// The card's small print is core/diag's verdict from both ends'
		// figures, whichever it names on this machine.
		if !p.detail.Visible() || !strings.HasPrefix(p.detail.Text, "What limited the speed: ") || strings.Contains(p.detail.Text, "slowest stage") {
			t.Errorf("verdict on the card: visible %v, %q", p.detail.Visible(), p.detail.Text)
		}
		if !h.u.send.form.Visible() && h.u.send.cancel != nil {
			t.Error("the send is still marked running")
		}
		return true
	})
	if err := <-peer.done; err != nil {
		t.Fatalf("receiver: %v", err)
	}
	peer.done <- nil // for the cleanup
	for _, rel := range []string{"report.pdf", "album/one.jpg", "album/two.jpg"} {
		want, _ := os.ReadFile(filepath.Join(src, rel))
		got, err := os.ReadFile(filepath.Join(peer.dir, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s did not arrive intact: %v", rel, err)
		}
	}
}

func TestSendWrongCode(t *testing.T) {
	peer := startPeerReceiver(t, peerAccepts)
	h := newHarness(t, noReceive)
	h.drop(writeFile(t, t.TempDir(), "a.txt", 100))
	wrong := "000000"
	if peer.r.Code() == wrong {
		wrong = "111111"
	}
	h.fill(peer.addr(), wrong)
	h.tap(h.u.send.sendBtn)
	h.waitFor("the result", func() bool { return h.u.send.prog.state != stateRunning })
	h.loop.run(func() {
		p := h.u.send.prog
		if p.state != stateFailed || p.headline.Text != "Wrong code" {
			t.Errorf("state %v headline %q (%s)", p.state, p.headline.Text, p.detail.Text)
		}
		if !contains(p.advice.Text, "didn't match") {
			t.Errorf("advice %q", p.advice.Text)
		}
	})
}

func TestSendCancel(t *testing.T) {
	// The receiver asks and nobody answers, so the send is certainly
	// still running when Cancel is pressed.
	peer := startPeerReceiver(t, peerAsks)
	h := newHarness(t, noReceive)
	h.drop(writeFile(t, t.TempDir(), "a.txt", 100))
	h.fill(peer.addr(), peer.r.Code())
	h.tap(h.u.send.sendBtn)
	for ev := range peer.events {
		if _, ok := ev.(event.Offer); ok {
			break
		}
	}
	h.tap(h.u.send.prog.cancel)
	h.waitFor("the result", func() bool { return h.u.send.prog.state != stateRunning })
	h.loop.run(func() {
		p := h.u.send.prog
		if p.state != stateFailed || p.headline.Text != "Cancelled" {
			t.Errorf("state %v headline %q (%s)", p.state, p.headline.Text, p.detail.Text)
		}
	})
	err := <-peer.done
	peer.done <- err
	if !errors.Is(err, app.ErrCancelled) {
		t.Errorf("the receiver ended with %v, want ErrCancelled", err)
	}
}

// sendTo sends items from a device called "Laptop", with the code, to
// the UI's receiver on a goroutine the test owns.
func sendTo(t *testing.T, h *harness, items ...event.Item) <-chan error {
	t.Helper()
	var code string
	var port int
	h.waitFor("the receiver to listen", func() bool {
		if !h.u.recv.waiting() || !h.u.recv.ready.Visible() {
			return false
		}
		code, port = h.u.recv.code, h.u.recv.port
		return true
	})
	return goSend(t, newDevice(t, "Laptop"), app.SendConfig{
		Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: code, Items: items,
	})
}

func TestReceiveAcceptThenDecline(t *testing.T) {
	h := newHarness(t)
	h.u.Start()
	v := h.u.recv
	h.waitFor("a code", func() bool { return len(v.code) >= 6 && v.qr.Image != nil })
	h.loop.run(func() {
		l, err := nearby.ParseLink(v.link)
		if err != nil || l.Code != v.code || l.Fingerprint != h.id.Fingerprint() {
			t.Errorf("QR link %q: %+v %v", v.link, l, err)
		}
	})

	src := writeFile(t, t.TempDir(), "holiday.jpg", 123_456)
	done := sendTo(t, h, event.Item{Path: src}, event.Item{Text: "the wifi password is hunter2"})
	h.waitFor("the offer dialog", func() bool { return v.offer != nil })
	s := h.screen()
	for _, want := range []string{"Laptop wants to send you 1 file and 1 text", "holiday.jpg"} {
		if !contains(s, want) {
			t.Errorf("offer dialog does not show %q", want)
		}
	}
	h.tap(v.accept)
	if err := <-done; err != nil {
		t.Fatalf("send: %v", err)
	}
	h.waitFor("the verified result", func() bool { return v.prog.state == stateVerified })
	got, err := os.ReadFile(filepath.Join(h.dir, "holiday.jpg"))
	if err != nil || len(got) != 123_456 {
		t.Errorf("holiday.jpg: %d bytes, %v", len(got), err)
	}
	s = h.screen()
	for _, want := range []string{"received and verified", "the wifi password is hunter2", "Copy", "Open folder"} {
		if !contains(s, want) {
			t.Errorf("result does not show %q", want)
		}
	}

	// Receive more: the receiver waits again, and this time the person
	// declines.
	h.loop.run(v.listenAgain)
	h.waitFor("the receiver to wait again", func() bool { return v.waiting() && !v.busy && v.ready.Visible() })
	done = sendTo(t, h, event.Item{Path: src})
	h.waitFor("the offer dialog", func() bool { return v.offer != nil })
	h.tap(v.decline)
	if err := <-done; !errors.Is(err, app.ErrDeclined) {
		t.Errorf("send after decline: %v, want ErrDeclined", err)
	}
	h.waitFor("the declined result", func() bool { return v.prog.state == stateFailed })
	h.loop.run(func() {
		if v.prog.headline.Text != "Declined" {
			t.Errorf("headline %q", v.prog.headline.Text)
		}
	})
}

func TestReceiveCancelWhileAsking(t *testing.T) {
	h := newHarness(t)
	h.u.Start()
	v := h.u.recv
	done := sendTo(t, h, event.Item{Text: "hi"})
	h.waitFor("the offer dialog", func() bool { return v.offer != nil })
	h.tap(v.prog.cancel)
	if err := <-done; !errors.Is(err, app.ErrCancelled) {
		t.Errorf("send: %v, want ErrCancelled", err)
	}
	h.waitFor("the result", func() bool { return v.prog.state == stateFailed })
	h.loop.run(func() {
		if v.offer != nil {
			t.Error("the offer dialog stayed open")
		}
		if v.prog.headline.Text != "Cancelled" {
			t.Errorf("headline %q", v.prog.headline.Text)
		}
	})
}

func TestSettingsRestartWaitingReceiver(t *testing.T) {
	h := newHarness(t)
	h.u.Start()
	v := h.u.recv
	var first int
	h.waitFor("a receiver", func() bool { first = v.gen; return v.waiting() })
	newDir := filepath.Join(t.TempDir(), "Incoming")
	h.loop.run(func() {
		s := h.u.settings
		s.name.SetText("Renamed desk")
		s.dir.SetText(newDir)
		s.ask.SetChecked(false)
		s.save()
	})
	h.waitFor("a new receiver", func() bool { return v.waiting() && v.gen != first })
	h.loop.run(func() {
		if !contains(v.name.Text, "Renamed desk") {
			t.Errorf("name %q", v.name.Text)
		}
		if h.app.Preferences().String(prefDir) != newDir || h.app.Preferences().Bool(prefAsk) {
			t.Error("settings were not stored")
		}
	})
	if fi, err := os.Stat(newDir); err != nil || !fi.IsDir() {
		t.Errorf("the new download folder was not created: %v", err)
	}
	// Without asking, a transfer goes straight through.
	done := sendTo(t, h, event.Item{Text: "no questions"})
	if err := <-done; err != nil {
		t.Fatalf("send: %v", err)
	}
	h.waitFor("the result", func() bool { return v.prog.state == stateVerified })
}

func TestReceiveShowsNewCodeAfterWrongGuesses(t *testing.T) {
	h := newHarness(t)
	h.u.Start()
	v := h.u.recv
	var code string
	var port int
	h.waitFor("a receiver", func() bool {
		if !v.waiting() {
			return false
		}
		code, port = v.code, v.port
		return true
	})
	// Three typos from one device, as a person makes them.
	typist := newDevice(t, "Guesser")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for i := 0; i < 3; i++ {
		err := typist.Send(context.Background(), app.SendConfig{
			Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: wrong,
			Items: []event.Item{{Text: "x"}},
		}).Wait().Err
		if !errors.Is(err, app.ErrWrongCode) && !errors.Is(err, app.ErrCodeRetired) {
			t.Fatalf("guess %d: %v, want a wrong-code error", i+1, err)
		}
	}
	h.waitFor("a new code", func() bool { return v.code != code })
	h.loop.run(func() {
		if v.codeText.Text != v.code || !contains(v.link, "code="+v.code) {
			t.Errorf("shown code %q, QR link %q, current code %q", v.codeText.Text, v.link, v.code)
		}
	})
}

func TestSendToDiscoveredDeviceTriesEachAddress(t *testing.T) {
	peer := startPeerReceiver(t, peerAccepts)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	found := []Device{{Name: "Peer box", Fingerprint: "PEER-PEER-PEER-PEER", Addrs: []string{deadAddr, peer.addr()}}}
	browse := func(ctx context.Context, onChange func([]Device)) error {
		onChange(found)
		<-ctx.Done()
		return nil
	}
	h := newHarness(t, noReceive, func(c *Config) { c.Browse = browse })
	h.u.Start()
	v := h.u.send
	h.drop(writeFile(t, t.TempDir(), "a.bin", 4096))
	h.waitFor("the device", func() bool { return len(v.devices) == 1 })
	h.loop.run(func() {
		v.devList.Select(0)
		test.Type(v.code, peer.r.Code())
	})
	h.tap(v.sendBtn)
	h.waitFor("the result", func() bool { return v.prog.state != stateRunning })
	h.loop.run(func() {
		if v.prog.state != stateVerified {
			t.Errorf("send failed: %s (%s)", v.prog.headline.Text, v.prog.detail.Text)
		}
	})
}

func TestSendToDeviceWithoutAddressFails(t *testing.T) {
	// Discovery can report a device whose advertisement carried no usable
	// address: sending to it fails with an error, it doesn't crash.
	browse := func(ctx context.Context, onChange func([]Device)) error {
		onChange([]Device{{Name: "Ghost", Fingerprint: "GHST-GHST-GHST-GHST"}})
		<-ctx.Done()
		return nil
	}
	h := newHarness(t, noReceive, func(c *Config) { c.Browse = browse })
	h.u.Start()
	v := h.u.send
	h.drop(writeFile(t, t.TempDir(), "a.bin", 10))
	h.waitFor("the device", func() bool { return len(v.devices) == 1 })
	h.loop.run(func() {
		v.devList.Select(0)
		test.Type(v.code, "123456")
	})
	h.tap(v.sendBtn)
	h.waitFor("the result", func() bool { return v.prog.state != stateRunning })
	h.loop.run(func() {
		if v.prog.state != stateFailed || !contains(v.prog.detail.Text, "no addresses") {
			t.Errorf("state %v, detail %q; want a failure for want of an address", v.prog.state, v.prog.detail.Text)
		}
	})
}
