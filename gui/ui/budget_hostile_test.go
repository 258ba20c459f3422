package ui

// Rounds of wrong codes a minute apart on the budget's clock, eight at a
// time from one key: a guesser, a hostile sender, so it is the engine's.

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// The app keeps one receiver (the Node's) across transfers and the
// tray's listening again, and a new one when settings restart it; they
// all spend the device's one budget (the Node's). Three rounds of 8
// wrong codes a minute apart (past every back-off, on the budget's
// clock), each round on a new wait for a sender and followed by an
// honest sender, through the real engine: 12 checked in all (a receiver
// per transfer with its own budget checked 24), the second round's
// honest sender is told to wait, and the third wait, on a receiver
// started after a restart, shows "Stopped taking codes" before anyone
// guesses.
func TestOneBudgetAcrossReceivers(t *testing.T) {
	clock := testkit.NewClock()
	h := newHarness(t, askOff, withNode(t, app.Config{NoHistory: true, Now: clock.Now}))
	h.u.Start()
	v := h.u.recv
	id := testid.New(t)
	checked, held, honest := 0, 0, 0
	var prev int
	for round := range 3 {
		var r int
		var addr string
		h.waitFor("a new receiver", func() bool {
			if !v.waiting() || v.gen == prev || !v.ready.Visible() {
				return false
			}
			r, addr = v.gen, fmt.Sprintf("127.0.0.1:%d", v.port)
			return true
		})
		prev = r
		if round == 2 {
			h.waitFor("codes stopped, said at once", func() bool { return v.codesHead.Text == "Stopped taking codes" && v.newCode.Visible() })
		}
		for i := range 8 {
			clock.Add(time.Minute)
			_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 500000+10*round+i),
				Identity: id, Name: "Guesser", Items: []event.Item{{Text: "x"}}})
			switch {
			case errors.Is(err, secure.ErrCodesHeld):
				held++
			case errors.Is(err, secure.ErrWrongCode), errors.Is(err, secure.ErrCodeRetired):
				checked++
			default:
				t.Fatalf("round %d, guess %d: %v", round+1, i+1, err)
			}
		}
		clock.Add(time.Minute)
		switch err := <-sendTo(t, h, event.Item{Text: "honest"}); {
		case err == nil:
			honest++
			h.waitFor("the result", func() bool { return v.prog.state == stateVerified })
			h.loop.run(v.listenAgain) // as the tray does after a transfer
		case errors.Is(err, secure.ErrCodesHeld):
			h.loop.run(v.settingsChanged) // a waiting receiver restarts
		default:
			t.Fatalf("round %d: the honest sender: %v", round+1, err)
		}
	}
	t.Logf("3 rounds of 8 wrong codes against the app (one receiver kept, and a new one after a restart), each followed by an honest sender: %d checked, %d held, %d honest transfers (a budget per receiver checked 24)",
		checked, held, honest)
	if checked != 12 || honest != 1 {
		t.Fatalf("%d wrong codes checked, %d honest transfers; want one budget's 12, and 1", checked, honest)
	}
}
