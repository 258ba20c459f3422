package receive

import (
	"bytes"
	"errors"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

// pinSet is a receiver's pins, changeable while it serves.
type pinSet struct {
	mu   sync.Mutex
	keys [][]byte
}

func (p *pinSet) has(k []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range p.keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}

func (p *pinSet) set(keys ...[]byte) {
	p.mu.Lock()
	p.keys = keys
	p.mu.Unlock()
}

// pairedPair is newPair with the receiver pinning the test sender, and
// the sender in paired mode.
func pairedPair(t *testing.T, rcfg ReceiverConfig) (*pair, *pinSet) {
	sid, rid := ids(t)
	pins := &pinSet{keys: [][]byte{sid.Public()}}
	rcfg.Paired = pins.has
	p := newPair(t, t.Context(), rcfg)
	p.send.Code = ""
	p.send.PeerKey = rid.Public()
	return p, pins
}

func textItem(s string) event.Item { return event.Item{Text: s, Name: "note.txt"} }

func TestPairedTransfer(t *testing.T) {
	p, _ := pairedPair(t, ReceiverConfig{Policy: AcceptAll})
	src := filepath.Join(t.TempDir(), "f.bin")
	writeFile(t, src, pattern(2*transfer.MaxChunk+3, 9))
	if _, serr, _, rerr := p.run(t.Context(), event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("send %v, receive %v", serr, rerr)
	}
	sameTree(t, src, p.r.cfg.Dir)
	sid, rid := ids(t)
	for end, tc := range map[string]struct {
		r   *recorder
		key []byte
	}{"sender": {p.sev, rid.Public()}, "receiver": {p.rev, sid.Public()}} {
		c := eventsOf[event.Connected](tc.r)
		if len(c) != 1 || !c[0].Paired || !bytes.Equal(c[0].PeerKey, tc.key) {
			t.Errorf("%s's event.Connected: %+v, want Paired with the peer's key", end, c)
		}
	}
	// A code sender to the same kind of receiver is not paired.
	q, _ := pairedPair(t, ReceiverConfig{Policy: AcceptAll})
	q.send.PeerKey, q.send.Code = nil, q.r.Code()
	if _, serr, _, rerr := q.run(t.Context(), textItem("hi")); serr != nil || rerr != nil {
		t.Fatalf("code sender: send %v, receive %v", serr, rerr)
	}
	if c := eventsOf[event.Connected](q.rev); len(c) != 1 || c[0].Paired || len(c[0].PeerKey) != 32 {
		t.Errorf("code sender's event.Connected: %+v", c)
	}
}

// Failed paired attempts (pin removed, stale pin, impostor, receiver
// accepting no paired senders) are refused with a clear error, never
// count as wrong codes, and leave the receiver serving.
func TestPairedRefusals(t *testing.T) {
	ctx := t.Context()
	p, pins := pairedPair(t, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Attempts: 1}})
	code := p.r.Code()
	sid, rid := ids(t)
	send := func(cfg send.SendConfig) error {
		t.Helper()
		cfg.Items = []event.Item{textItem("x")}
		cfg.OnEvent = nil
		_, err := send.Send(ctx, cfg)
		return err
	}

	pins.set() // the receiver removed its pin for the sender
	err := send(p.send)
	if !errors.Is(err, secure.ErrNotPaired) || !strings.Contains(err.Error(), "does not trust this one") {
		t.Fatalf("pin removed: got %v, want ErrNotPaired", err)
	}
	t.Logf("pin removed: %v", err)
	pins.set(sid.Public())

	stale := testid.New(t) // the key the sender pinned before the receiver made a new one
	cfg := p.send
	cfg.PeerKey = stale.Public()
	err = send(cfg)
	if !errors.Is(err, secure.ErrKeyChanged) || !strings.Contains(err.Error(), stale.Fingerprint()) ||
		!strings.Contains(err.Error(), rid.Fingerprint()) {
		t.Fatalf("stale pin: got %v, want ErrKeyChanged naming both fingerprints", err)
	}
	t.Logf("stale pin: %v", err)

	impostor := testid.New(t)
	cfg = p.send
	cfg.Identity = impostor
	if err := send(cfg); !errors.Is(err, secure.ErrNotPaired) {
		t.Fatalf("impostor: got %v, want ErrNotPaired", err)
	}

	if p.r.Code() != code || len(eventsOf[event.CodeChanged](p.rev)) != 0 {
		t.Fatal("paired-mode failures counted as wrong codes")
	}
	if _, serr, _, rerr := p.run(ctx, textItem("still serving")); serr != nil || rerr != nil {
		t.Fatalf("paired sender after the refusals: send %v, receive %v", serr, rerr)
	}
	// Serve has returned, so every handshake's goroutine has ended: the
	// receiver reported each refusal, and said why.
	checkRefused(t, p.rev,
		event.Refused{Reason: event.NotTrusted, PeerFingerprint: sid.Fingerprint(), PeerKey: sid.Public()},
		event.Refused{Reason: event.PinMismatch},
		event.Refused{Reason: event.NotTrusted, PeerFingerprint: impostor.Fingerprint(), PeerKey: impostor.Public()})

	// A receiver that accepts no paired senders.
	q := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	cfg = q.send
	cfg.Code, cfg.PeerKey = "", rid.Public()
	err = send(cfg)
	if !errors.Is(err, secure.ErrNotPaired) {
		t.Fatalf("receiver without pins: got %v, want ErrNotPaired", err)
	}
	t.Logf("receiver without pins: %v", err)
	if _, serr, _, rerr := q.run(ctx, textItem("with the code")); serr != nil || rerr != nil {
		t.Fatalf("code sender after the refusal: send %v, receive %v", serr, rerr)
	}
	checkRefused(t, q.rev, event.Refused{Reason: event.TrustOff})

	cfg = p.send
	cfg.Code = code
	if err := send(cfg); err == nil || errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("both a code and a pin: got %v, want a configuration error", err)
	}
}

// AutoAcceptPaired accepts a paired sender's offer without Accept; a code
// sender, or a paired one without the setting, still waits for it.
func TestAutoAcceptPaired(t *testing.T) {
	for _, tc := range []struct {
		name         string
		auto, paired bool
		asked        bool
	}{
		{"auto paired", true, true, false},
		{"auto code", true, false, true},
		{"ask paired", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := pairedPair(t, ReceiverConfig{Policy: Ask, AutoAcceptPaired: tc.auto})
			if !tc.paired {
				p.send.PeerKey, p.send.Code = nil, p.r.Code()
			}
			asked := false
			p.rev.hook = func(ev event.Event) {
				if _, ok := ev.(event.Offer); ok && tc.asked {
					asked = true
					p.r.Accept()
				}
			}
			if _, serr, _, rerr := p.run(t.Context(), textItem("auto?")); serr != nil || rerr != nil {
				t.Fatalf("send %v, receive %v", serr, rerr)
			}
			if len(eventsOf[event.Offer](p.rev)) != 1 || asked != tc.asked {
				t.Fatalf("Offered %d times, answered by Accept: %v, want %v", len(eventsOf[event.Offer](p.rev)), asked, tc.asked)
			}
		})
	}
}

// checkRefused checks that r holds exactly the Refused events want (in
// any order: each handshake reports on its own goroutine), each from a
// loopback address, wrapping secure.ErrNotPaired (and saying to pair
// again, where that is the cure), none with a count of dropped ones.
func checkRefused(t *testing.T, r *recorder, want ...event.Refused) {
	t.Helper()
	got := eventsOf[event.Refused](r)
	left := append([]event.Refused(nil), want...)
	for _, e := range got {
		t.Logf("Refused %v from %s: %v", e.Reason, e.Addr, e.Err)
		if !errors.Is(e.Err, secure.ErrNotPaired) || (e.Reason != event.TrustOff) != strings.Contains(e.Err.Error(), "pair again") ||
			!strings.HasPrefix(e.Addr, "127.0.0.1:") || e.Dropped != 0 {
			t.Errorf("Refused event: %+v", e)
		}
		i := slices.IndexFunc(left, func(w event.Refused) bool {
			return w.Reason == e.Reason && w.PeerFingerprint == e.PeerFingerprint && bytes.Equal(w.PeerKey, e.PeerKey)
		})
		if i < 0 {
			t.Errorf("unexpected event.Refused %v %q", e.Reason, e.PeerFingerprint)
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	for _, w := range left {
		t.Errorf("no event.Refused %v %q", w.Reason, w.PeerFingerprint)
	}
}

// frozenClock is the time the limit on Refused events sees; each reading
// is also a sign that a refusal reached the limit.
type frozenClock struct {
	mu    sync.Mutex
	now   time.Time
	reads chan struct{}
}

func (c *frozenClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads <- struct{}{}
	return c.now
}

func (c *frozenClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// A flood of refused paired senders is reported in part: refusedBurst
// events, then one per refusedEvery saying how many were left out.
// Wrong codes and connections that are not Ferry are not refusals.
func TestRefusedLimit(t *testing.T) {
	ctx := t.Context()
	clock := &frozenClock{now: time.Unix(1_700_000_000, 0), reads: make(chan struct{}, 64)}
	events := make(chan event.Refused, 64)
	p, pins := pairedPair(t, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Now: clock.read}})
	p.rev.hook = func(ev event.Event) {
		if e, ok := ev.(event.Refused); ok {
			events <- e
		}
	}
	pins.set()
	refuse := func(n int) {
		t.Helper()
		for range n {
			cfg := p.send
			cfg.Items, cfg.OnEvent = []event.Item{textItem("x")}, nil
			if _, err := send.Send(ctx, cfg); !errors.Is(err, secure.ErrNotPaired) {
				t.Fatalf("send: %v, want ErrNotPaired", err)
			}
		}
		for range n {
			select {
			case <-clock.reads:
			case <-time.After(waitLimit):
				t.Fatal("a refusal never reached the limit")
			}
		}
	}
	next := func() event.Refused {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(waitLimit):
			t.Fatal("no event.Refused event")
		}
		return event.Refused{}
	}

	const flood = 10
	refuse(flood)
	for range refusedBurst {
		if e := next(); e.Reason != event.NotTrusted || e.Dropped != 0 {
			t.Fatalf("Refused in the burst: %+v", e)
		}
	}
	// Not refusals: a wrong code, and a connection that says nothing of
	// Ferry (the receiver closes both).
	cfg := p.send
	cfg.PeerKey, cfg.Code, cfg.Items, cfg.OnEvent = nil, "000000", []event.Item{textItem("x")}, nil
	if p.r.Code() == "000000" {
		cfg.Code = "111111"
	}
	if _, err := send.Send(ctx, cfg); !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("wrong code: %v", err)
	}
	nc, err := net.Dial("tcp", p.send.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	io.Copy(io.Discard, nc)
	nc.Close()

	clock.add(refusedEvery)
	refuse(1)
	if e := next(); e.Dropped != flood-refusedBurst {
		t.Fatalf("Refused after the flood: %+v, want %d dropped", e, flood-refusedBurst)
	}
	pins.set(p.send.Identity.Public())
	if _, serr, _, rerr := p.run(ctx, textItem("after the flood")); serr != nil || rerr != nil {
		t.Fatalf("send %v, receive %v", serr, rerr)
	}
	// Serve has returned: every handshake has ended, and the wrong code
	// and the stranger never reached the limit.
	if n := len(eventsOf[event.Refused](p.rev)); n != refusedBurst+1 || len(clock.reads) != 0 {
		t.Fatalf("%d event.Refused events and %d more refusals, want %d and none", n, len(clock.reads), refusedBurst+1)
	}
}
