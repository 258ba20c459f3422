package receive

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"filippo.io/cpace"
	"github.com/flynn/noise"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
)

// maxChecked is the most wrong codes the budget lets through in the
// first d of a flood that starts on a fresh budget and guesses without
// pause: the free ones at once, then one per back-off step, and none
// after the stop.
func maxChecked(d time.Duration) int {
	n, at := guess.Free, time.Duration(0)
	for n < guess.StopAt {
		at += guess.Wait << (n - guess.Free)
		if at > d {
			break
		}
		n++
	}
	return n
}

// TestMaxChecked holds maxChecked to the budget's rules: the free ones
// at once, and the stop within an hour.
func TestMaxChecked(t *testing.T) {
	if got := maxChecked(time.Hour); got != guess.StopAt {
		t.Fatalf("maxChecked(1h) = %d, want %d", got, guess.StopAt)
	}
	if got := maxChecked(0); got != guess.Free {
		t.Fatalf("maxChecked(0) = %d, want %d", got, guess.Free)
	}
}

// A person who mistypes twice gets through at once, and the receiver
// says that two wrong codes came first; the code the receiver picked is
// replaced once the transfer ends, and the next transfer starts with no
// wrong code behind it.
func TestMistypeTwiceThenThrough(t *testing.T) {
	ctx := t.Context()
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	good := p.send.Code
	for i := range 2 {
		bad := p.send
		bad.Items, bad.OnEvent = []event.Item{textItem("x")}, nil
		bad.Code = fmt.Sprintf("%06d", (codeNum(good)+1+i)%1_000_000)
		if _, err := send.Send(ctx, bad); !errors.Is(err, secure.ErrWrongCode) {
			t.Fatalf("typo %d: %v, want a wrong code", i+1, err)
		}
	}
	if _, serr, _, rerr := p.run(ctx, textItem("third time")); serr != nil || rerr != nil {
		t.Fatalf("right code after two typos: send %v, receive %v", serr, rerr)
	}
	if c := eventsOf[event.Connected](p.rev); len(c) != 1 || c[0].WrongCodes != 2 {
		t.Fatalf("Connected %+v, want one with WrongCodes 2", c)
	}
	changed := eventsOf[event.CodeChanged](p.rev)
	if len(changed) != 1 || changed[0].Reason != event.CodeUsed || changed[0].Code == good || changed[0].Code != p.r.Code() {
		t.Fatalf("CodeChanged %+v after the transfer (old %s, now %s), want one, reason used", changed, good, p.r.Code())
	}
	// The used code no longer works; the new one does, with no wrong
	// code behind it.
	go func() {
		sum, err := p.r.Serve(ctx)
		p.served <- serveResult{sum, err}
	}()
	old := p.send
	old.Items, old.OnEvent = []event.Item{textItem("again")}, nil
	if _, err := send.Send(ctx, old); !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("the used code: %v, want a wrong code", err)
	}
	p.send.Code = p.r.Code()
	if _, serr, _, rerr := p.run(ctx, textItem("next")); serr != nil || rerr != nil {
		t.Fatalf("the new code: send %v, receive %v", serr, rerr)
	}
	if c := eventsOf[event.Connected](p.rev); len(c) != 2 || c[1].WrongCodes != 1 {
		t.Fatalf("second event.Connected %+v, want WrongCodes 1 (the used code)", c)
	}
}

// A code fixed in the config is the person's choice: it survives a
// transfer, until wrong codes retire it.
func TestFixedCodeStays(t *testing.T) {
	ctx := t.Context()
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Code: "424242"})
	if _, serr, _, rerr := p.run(ctx, textItem("one")); serr != nil || rerr != nil {
		t.Fatalf("send %v, receive %v", serr, rerr)
	}
	if c := eventsOf[event.CodeChanged](p.rev); len(c) != 0 || p.r.Code() != "424242" {
		t.Fatalf("fixed code changed: %+v, now %s", c, p.r.Code())
	}
	// Retired by wrong guesses, the fixed code is gone; the code picked
	// in its place is used once, like any other.
	go func() {
		sum, err := p.r.Serve(ctx)
		p.served <- serveResult{sum, err}
	}()
	for range 3 {
		bad := p.send
		bad.Code, bad.Items, bad.OnEvent = "000000", []event.Item{textItem("x")}, nil
		if _, err := send.Send(ctx, bad); err == nil {
			t.Fatal("a wrong code was taken")
		}
	}
	p.send.Code = p.r.Code()
	if _, serr, _, rerr := p.run(ctx, textItem("two")); serr != nil || rerr != nil {
		t.Fatalf("send %v, receive %v", serr, rerr)
	}
	c := eventsOf[event.CodeChanged](p.rev)
	if len(c) != 2 || c[0].Reason != event.CodeRetired || c[1].Reason != event.CodeUsed || p.r.Code() == p.send.Code {
		t.Fatalf("after a retired fixed code and a transfer: %+v, now %s", c, p.r.Code())
	}
}

// guessLog records, under the receiver's lock, when each guess was
// checked.
type guessLog struct {
	mu    sync.Mutex
	wrong []time.Time
	right int
}

func (g *guessLog) checked(at time.Time, right bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if right {
		g.right++
	} else {
		g.wrong = append(g.wrong, at)
	}
}

func (g *guessLog) snapshot() ([]time.Time, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]time.Time(nil), g.wrong...), g.right
}

// checkSchedule fails if the checked wrong codes broke the budget: more
// than guess.StopAt, or one checked sooner after the one before than the
// back-off allows.
func checkSchedule(t *testing.T, wrong []time.Time) {
	t.Helper()
	if len(wrong) > guess.StopAt {
		t.Errorf("%d wrong codes checked, the budget allows %d", len(wrong), guess.StopAt)
	}
	for i := guess.Free; i < len(wrong); i++ {
		if gap, want := wrong[i].Sub(wrong[i-1]), guess.Wait<<(i-guess.Free); gap < want {
			t.Errorf("wrong code %d checked %v after the one before, the budget allows it after %v", i+1, gap, want)
		}
	}
}

// guessers runs n goroutines that each guess at full speed, with real
// handshakes over loopback, until ctx ends; guess returns the error the
// receiver answered with. It returns how many guesses were answered and
// how many of those were not checked (held back, or aimed at a code
// retired meanwhile: the sender cannot tell those apart from checked
// retirements, so the receiver's own log is the count of checks).
func guessers(ctx context.Context, t *testing.T, n int, guess func(ctx context.Context) error) (answered, held int64) {
	var wg sync.WaitGroup
	var a, h atomic.Int64
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				err := guess(ctx)
				switch {
				case ctx.Err() != nil:
				case errors.Is(err, secure.ErrCodesHeld):
					a.Add(1)
					h.Add(1)
				case errors.Is(err, secure.ErrWrongCode), errors.Is(err, secure.ErrCodeRetired):
					a.Add(1)
				default:
					t.Errorf("a guess: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	return a.Load(), h.Load()
}

// A minute of guessing at full speed from several connections at once,
// against the real receiver: the receiver checks exactly the budget's
// twelve wrong codes, spaced as its back-off says, then none (even the
// right code is held back) until a person asks for a new code, which
// then works at once. The guess rate is logged: before the budget, every
// answered guess was a checked one.
func TestGuessingAtFullSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of guessing: skipped in short mode")
	}
	t.Parallel()
	ctx := t.Context()
	log := &guessLog{}
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Checked: log.checked}})
	right := p.send.Code
	var stopped atomic.Int32
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.CodesStopped); ok {
			stopped.Add(1)
		}
	}
	const duration = 61 * time.Second
	// Cancelled, not a deadline: a dial that inherits the deadline can
	// fail a moment before the context says it ended.
	fctx, cancel := context.WithCancel(ctx)
	defer time.AfterFunc(duration, cancel).Stop()
	began := time.Now()
	var next atomic.Int64
	answered, held := guessers(fctx, t, 4, func(ctx context.Context) error {
		c := p.send
		c.Items, c.OnEvent = []event.Item{textItem("x")}, nil
		c.Code = fmt.Sprintf("%06d", (codeNum(right)+1+int(next.Add(1)))%1_000_000)
		_, err := send.Send(ctx, c)
		return err
	})
	took := time.Since(began)
	wrong, rights := log.snapshot()
	t.Logf("%d guesses answered in %v (%.0f a second), %d held back unchecked; %d checked (%.2f a second); the budget allows %d",
		answered, took.Round(time.Millisecond), float64(answered)/took.Seconds(), held, len(wrong),
		float64(len(wrong))/took.Seconds(), maxChecked(took))
	checkSchedule(t, wrong)
	if rights != 0 || len(wrong) != guess.StopAt || stopped.Load() != 1 {
		t.Fatalf("%d wrong and %d right codes checked, %d CodesStopped; want %d, 0 and 1", len(wrong), rights, stopped.Load(), guess.StopAt)
	}
	if answered < 10*guess.StopAt {
		t.Fatalf("only %d guesses answered in a minute: the guessers did not press", answered)
	}
	// Stopped: the right code is not even checked.
	c := p.send
	c.Code = p.r.Code()
	c.Items, c.OnEvent = []event.Item{textItem("x")}, nil
	if _, err := send.Send(ctx, c); !errors.Is(err, secure.ErrCodesHeld) {
		t.Fatalf("the right code while stopped: %v, want ErrCodesHeld", err)
	}
	p.send.Code = p.r.NewCode()
	if _, serr, _, rerr := p.run(ctx, textItem("after a new code")); serr != nil || rerr != nil {
		t.Fatalf("a new code: send %v, receive %v", serr, rerr)
	}
	if c := eventsOf[event.Connected](p.rev); len(c) != 1 || c[0].WrongCodes != guess.StopAt {
		t.Fatalf("Connected %+v, want WrongCodes %d", c, guess.StopAt)
	}
}

// garbage runs a code-mode handshake whose message 3 is random bytes:
// what a neighbour who wants to retire codes, not guess them, sends. It
// returns the receiver's rejection.
func garbage(ctx context.Context, addr string) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	mine := []byte{'F', 'E', 'R', 'R', 'Y', secure.ProtocolVersion, 0}
	if _, err := nc.Write(mine); err != nil {
		return err
	}
	theirs := make([]byte, len(mine))
	if _, err := io.ReadFull(nc, theirs); err != nil {
		return err
	}
	ciph := noise.CipherFunc(noise.CipherAESGCM)
	if theirs[len(theirs)-1] == 2 {
		ciph = noise.CipherChaChaPoly
	}
	kp, err := noise.DH25519.GenerateKeypair(rand.Reader)
	if err != nil {
		return err
	}
	prologue := append(mine, theirs...)
	hs, err := noise.NewHandshakeState(noise.Config{CipherSuite: noise.NewCipherSuite(noise.DH25519, ciph, noise.HashBLAKE2s),
		Pattern: noise.HandshakeXX, Initiator: true, Prologue: prologue, PresharedKeyPlacement: 3, StaticKeypair: kp})
	if err != nil {
		return err
	}
	msgA, _, err := cpace.Start("garbage", cpace.NewContextInfo("ferry sender", "ferry receiver", prologue))
	if err != nil {
		return err
	}
	m1, _, _, err := hs.WriteMessage(nil, msgA)
	if err != nil {
		return err
	}
	junk := make([]byte, 96)
	rand.Read(junk)
	var l [2]byte
	for _, m := range [][]byte{m1, nil, junk} {
		if m == nil { // message 2: read and ignore
			if _, err := io.ReadFull(nc, l[:]); err != nil {
				return err
			}
			if _, err := io.CopyN(io.Discard, nc, int64(binary.BigEndian.Uint16(l[:]))); err != nil {
				return err
			}
			continue
		}
		binary.BigEndian.PutUint16(l[:], uint16(len(m)))
		if _, err := nc.Write(append(l[:], m...)); err != nil {
			return err
		}
	}
	var rej [3]byte
	if _, err := io.ReadFull(nc, rej[:]); err != nil {
		return err
	}
	switch rej[2] {
	case 1:
		return secure.ErrWrongCode
	case 2:
		return secure.ErrCodeRetired
	case 7:
		return secure.ErrCodesHeld
	}
	return fmt.Errorf("rejection %v", rej)
}

// A flood of garbage in place of message 3 retires codes no faster than
// the budget allows: before it, three garbage handshakes retired any code,
// so a neighbour could keep a person from ever finishing a transfer.
func TestGarbageFloodRetiresNoFaster(t *testing.T) {
	ctx := t.Context()
	log := &guessLog{}
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Checked: log.checked}})
	const duration = 5 * time.Second
	// Cancelled, not a deadline: a dial that inherits the deadline can
	// fail a moment before the context says it ended.
	fctx, cancel := context.WithCancel(ctx)
	defer time.AfterFunc(duration, cancel).Stop()
	began := time.Now()
	answered, held := guessers(fctx, t, 4, func(ctx context.Context) error { return garbage(ctx, p.send.Addrs[0]) })
	took := time.Since(began)
	wrong, _ := log.snapshot()
	retired := 0
	for _, c := range eventsOf[event.CodeChanged](p.rev) {
		if c.Reason == event.CodeRetired {
			retired++
		}
	}
	allowed := maxChecked(took)
	t.Logf("%d garbage handshakes in %v, %d held back unchecked, %d checked, %d codes retired; the budget allows %d checks, so %d retirements",
		answered, took.Round(time.Millisecond), held, len(wrong), retired, allowed, allowed/p.r.cfg.hooks.MaxAttempts(defaultMaxAttempts))
	checkSchedule(t, wrong)
	if len(wrong) > allowed || retired > allowed/p.r.cfg.hooks.MaxAttempts(defaultMaxAttempts) {
		t.Fatalf("%d checked, %d codes retired in %v: the budget allows %d and %d", len(wrong), retired, took, allowed, allowed/p.r.cfg.hooks.MaxAttempts(defaultMaxAttempts))
	}
	if answered < int64(10*allowed) || held == 0 {
		t.Fatalf("%d garbage handshakes, %d held: the flood did not press", answered, held)
	}
}

func codeNum(s string) int {
	n := 0
	for _, c := range s {
		n = 10*n + int(c-'0')
	}
	return n
}
