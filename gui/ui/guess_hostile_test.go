package ui

// Guessing at full speed, which no person does: a hostile sender, so
// the guesser is the engine's.

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// guess sends one wrong code to addr, again and again while the receiver
// holds codes back, and returns what the checked guess was answered.
func guess(t *testing.T, addr string, id *secure.Identity, n int) error {
	t.Helper()
	for {
		_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 500000+n), Identity: id,
			Name: "Guesser", Items: []event.Item{{Text: "x"}}})
		if !errors.Is(err, secure.ErrCodesHeld) {
			return err
		}
	}
}

// Guessed at full speed through the real engine, the Receive view first
// says that codes are held back, then that it stopped taking codes, with
// the code greyed out and a New code button; the click shows a new code
// that works at once.
func TestReceiveStopsTakingCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("half a minute of guessing: skipped in short mode")
	}
	t.Parallel()
	h := newHarness(t, askOff)
	h.u.Start()
	v := h.u.recv
	_, addr, code := h.listening()
	id := testid.New(t)
	for i := range 7 {
		if err := guess(t, addr, id, i); !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	h.waitFor("codes held back", func() bool { return v.codes.Visible() && v.codesHead.Text == "7 wrong codes tried" })
	h.loop.run(func() {
		if v.newCode.Visible() {
			t.Error("New code offered while codes are only held back")
		}
	})
	for i := 7; i < 12; i++ {
		if err := guess(t, addr, id, i); !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	h.waitFor("codes stopped", func() bool { return v.codesHead.Text == "Stopped taking codes" && v.newCode.Visible() })
	stopped := v.code
	h.loop.run(func() {
		if !contains(v.codesText.Text, "12 wrong codes were tried") || !contains(v.codesText.Text, "guessing") {
			t.Errorf("stopped notice %q", v.codesText.Text)
		}
	})
	_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: stopped, Identity: id, Items: []event.Item{{Text: "x"}}})
	if !errors.Is(err, secure.ErrCodesHeld) {
		t.Fatalf("the shown code while stopped: %v, want ErrCodesHeld", err)
	}
	h.tap(v.newCode)
	h.waitFor("a new code", func() bool { return v.code != stopped && v.code != code && !v.codes.Visible() })
	// The new code is 8 digits (the count went on from 12), and the view
	// says why beside it.
	h.waitFor("why the code is longer", func() bool { return v.why.Visible() })
	h.loop.run(func() {
		if len(v.code) != 8 || !contains(v.why.Text, "8 digits, not 6: 12 wrong codes were tried on this device") {
			t.Errorf("the new code %q, beside it %q", v.code, v.why.Text)
		}
	})
	if err := <-sendTo(t, h, event.Item{Text: "after a new code"}); err != nil {
		t.Fatalf("send with the new code: %v", err)
	}
	h.waitFor("the result", func() bool { return v.prog.state == stateVerified })
	// The Trust box says that the code came after twelve wrong ones.
	h.waitFor("the trust box", func() bool { return v.prog.trust != nil })
	screen := h.screen()
	h.loop.run(func() {
		if v.prog.trust.Checked || v.prog.trust.Text != "Trust Laptop anyway: next time, no code needed" ||
			!contains(screen, "12 wrong codes were tried on this device before this sender") {
			t.Errorf("trust box %q checked=%v; screen:\n%s", v.prog.trust.Text, v.prog.trust.Checked, screen)
		}
	})
}
