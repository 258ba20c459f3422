package receive

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
)

// paced guesses one wrong code a sender would type, with a real
// handshake over loopback, and returns the receiver's answer.
func paced(ctx context.Context, p *pair, n int) error {
	c := p.send
	c.Items, c.OnEvent, c.PeerKey = []event.Item{textItem("x")}, nil, nil
	c.Code = fmt.Sprintf("%06d", (codeNum(p.r.Code())+1+n)%1_000_000)
	_, err := send.Send(ctx, c)
	return err
}

// Pacing beats no budget: 11 wrong codes a day (one short of the stop,
// each 20 s after the one before, past the longest back-off), then a
// wait for the next day, for 30 simulated days, against one receiver
// that stays up (real CPace + Noise handshakes over loopback; only the
// budget's clock is simulated). Before the budget counted from a
// person's act, wrong codes expired after 24 hours and this checked 330
// guesses (the same test against the fork point); now it checks
// guess.StopAt in all, stops on day 2, and says so once; a paired device
// still gets through, and a person's new code starts the count over.
func TestPacedGuessingOverDays(t *testing.T) {
	ctx := t.Context()
	clock := testkit.NewClock()
	log := &guessLog{}
	sid, _ := ids(t)
	pins := &pinSet{keys: [][]byte{sid.Public()}}
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Paired: pins.has, hooks: &testhooks.Hooks{Checked: log.checked},
		Budget: guess.NewBudget(guess.Config{Now: clock.Now})})
	const days, perDay = 30, 11
	var held, n int
	stopDay := -1
	for day := range days {
		dayStart := clock.Now()
		for range perDay {
			clock.Add(20 * time.Second) // past the longest back-off (16 s)
			err := paced(ctx, p, n)
			n++
			switch {
			case errors.Is(err, secure.ErrCodesHeld):
				held++
			case errors.Is(err, secure.ErrWrongCode), errors.Is(err, secure.ErrCodeRetired):
			default:
				t.Fatalf("day %d, guess %d: %v", day+1, n, err)
			}
		}
		if stopDay < 0 && p.r.budget.Stopped() {
			stopDay = day + 1
		}
		clock.Add(24*time.Hour - clock.Now().Sub(dayStart)) // and wait for the next day
	}
	wrong, right := log.snapshot()
	t.Logf("%d wrong codes sent over %d simulated days (%d a day): %d checked, %d held back unchecked; stopped on day %d",
		n, days, perDay, len(wrong), held, stopDay)
	if len(wrong) != guess.StopAt || right != 0 || held != days*perDay-guess.StopAt || stopDay != 2 {
		t.Fatalf("%d checked (%d right), %d held, stopped on day %d; want %d checked, stopped on day 2",
			len(wrong), right, held, stopDay, guess.StopAt)
	}
	if s := eventsOf[event.CodesStopped](p.rev); len(s) != 1 || s[0].Wrong != guess.StopAt {
		t.Fatalf("CodesStopped %+v, want one with Wrong %d", s, guess.StopAt)
	}
	// A paired device needs no code: served while codes are stopped.
	_, rid := ids(t)
	paired := p.send
	paired.Code, paired.PeerKey = "", rid.Public()
	p.send = paired
	if _, serr, _, rerr := p.run(ctx, textItem("from a trusted device")); serr != nil || rerr != nil {
		t.Fatalf("paired while codes are stopped: send %v, receive %v", serr, rerr)
	}
	// A person's new code: codes are checked again, at once.
	code := p.r.NewCode()
	go func() {
		sum, err := p.r.Serve(ctx)
		p.served <- serveResult{sum, err}
	}()
	p.send.Code, p.send.PeerKey = code, nil
	if _, serr, _, rerr := p.run(ctx, textItem("after a new code")); serr != nil || rerr != nil {
		t.Fatalf("a new code: send %v, receive %v", serr, rerr)
	}
}

// One budget per device, whatever the front end does with Receivers: the
// app and mobile make a new Receiver for every transfer (and the tray
// makes one again when it restarts receiving). Three rounds of eight
// wrong codes, a minute apart (past every back-off), each round on a new
// Receiver sharing the budget and followed by an honest sender with the
// right code, check one budget in all: 12, and the honest sender of
// round 1 gets through, those after the stop are told to wait, and the
// third Receiver says at once that codes are stopped. Before, each new
// Receiver came with a budget of its own and this checked 24.
func TestBudgetSharedAcrossReceivers(t *testing.T) {
	ctx := t.Context()
	clock := testkit.NewClock()
	budget := guess.NewBudget(guess.Config{Now: clock.Now})
	log := &guessLog{}
	var honest, held int
	var last *pair
	for round := range 3 {
		p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Budget: budget, hooks: &testhooks.Hooks{Checked: log.checked}})
		for i := range 8 {
			clock.Add(time.Minute)
			if err := paced(ctx, p, i); errors.Is(err, secure.ErrCodesHeld) {
				held++
			} else if !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
				t.Fatalf("round %d, guess %d: %v", round+1, i+1, err)
			}
		}
		clock.Add(time.Minute)
		c := p.send
		c.Code, c.Items = p.r.Code(), []event.Item{textItem("honest")}
		switch _, err := send.Send(ctx, c); {
		case err == nil:
			honest++
			if res := <-p.served; res.err != nil {
				t.Fatalf("round %d: the honest transfer's receiver: %v", round+1, res.err)
			}
		case errors.Is(err, secure.ErrCodesHeld):
			p.r.Close()
			<-p.served
		default:
			t.Fatalf("round %d: the honest sender: %v", round+1, err)
		}
		last = p
	}
	wrong, _ := log.snapshot()
	t.Logf("3 rounds of 8 wrong codes and an honest sender, on 3 Receivers sharing one budget: %d wrong codes checked, %d held, %d honest transfers",
		len(wrong), held, honest)
	if len(wrong) != guess.StopAt || honest != 1 || held != 3*8-guess.StopAt {
		t.Fatalf("%d wrong codes checked, %d held, %d honest transfers; want %d, %d and 1", len(wrong), held, honest, guess.StopAt, 3*8-guess.StopAt)
	}
	if s := eventsOf[event.CodesStopped](last.rev); len(s) != 1 || s[0].Wrong != guess.StopAt {
		t.Fatalf("the third Receiver's event.CodesStopped: %+v, want one, told as it started serving", s)
	}
}

// A paired-only receiver (ferry receive --daemon) refuses a sender with
// a code before any guess is checked, even the right code: the sender
// is told ErrNoCodes, the receiver reports Refused with CodesOff and
// goes on serving, and the budget is untouched. A paired sender gets
// through.
func TestPairedOnlyRefusesCodes(t *testing.T) {
	ctx := t.Context()
	log := &guessLog{}
	budget := guess.NewBudget(guess.Config{})
	p, _ := pairedPair(t, ReceiverConfig{Policy: AcceptAll, PairedOnly: true, Budget: budget, hooks: &testhooks.Hooks{Checked: log.checked}})
	for i, code := range []string{p.r.Code(), "000000"} {
		c := p.send
		c.Code, c.PeerKey, c.Items, c.OnEvent = code, nil, []event.Item{textItem("x")}, nil
		_, err := send.Send(ctx, c)
		if !errors.Is(err, secure.ErrNoCodes) || errkind.Of(err) != errkind.NotPaired {
			t.Fatalf("code %d at a paired-only receiver: %v (kind %s), want ErrNoCodes", i+1, err, errkind.Of(err))
		}
	}
	if wrong, right := log.snapshot(); len(wrong) != 0 || right != 0 || budget.Wrong() != 0 {
		t.Fatalf("%d wrong and %d right codes checked, %d counted: want none", len(wrong), right, budget.Wrong())
	}
	if _, serr, _, rerr := p.run(ctx, textItem("paired")); serr != nil || rerr != nil {
		t.Fatalf("paired at a paired-only receiver: send %v, receive %v", serr, rerr)
	}
	// Serve has returned, so every handshake it started has ended.
	refused := eventsOf[event.Refused](p.rev)
	if len(refused) != 2 || refused[0].Reason != event.CodesOff || !errors.Is(refused[0].Err, secure.ErrNoCodes) || refused[0].PeerKey != nil {
		t.Fatalf("Refused %+v, want two with reason CodesOff", refused)
	}
	if _, err := NewReceiver(ReceiverConfig{Dir: t.TempDir(), Identity: p.r.cfg.Identity, PairedOnly: true, NoListen: true}); err == nil {
		t.Fatal("a paired-only receiver without Paired was made")
	}
}
