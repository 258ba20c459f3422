package ui

import (
	"errors"
	"fmt"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

// guess sends one wrong code to addr, again and again while the receiver
// holds codes back, and returns what the checked guess was answered.
func guess(t *testing.T, addr string, id *secure.Identity, n int) error {
	t.Helper()
	for {
		_, err := transfer.Send(t.Context(), transfer.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 500000+n), Identity: id,
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
	_, err := transfer.Send(t.Context(), transfer.SendConfig{Addrs: []string{addr}, Code: stopped, Identity: id, Items: []event.Item{{Text: "x"}}})
	if !errors.Is(err, secure.ErrCodesHeld) {
		t.Fatalf("the shown code while stopped: %v, want ErrCodesHeld", err)
	}
	h.tap(v.newCode)
	h.waitFor("a new code", func() bool { return v.code != stopped && v.code != code && !v.codes.Visible() })
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

// Two typos, then the right code: the transfer goes through at once, and
// the Trust box says so before the person ticks it.
func TestTrustBoxAfterTypos(t *testing.T) {
	h := newHarness(t, askOff)
	h.u.Start()
	v := h.u.recv
	_, addr, _ := h.listening()
	id := testid.New(t)
	for i := range 2 {
		if err := guess(t, addr, id, i); !errors.Is(err, secure.ErrWrongCode) {
			t.Fatalf("typo %d: %v", i+1, err)
		}
	}
	if err := <-sendTo(t, h, event.Item{Text: "third time"}); err != nil {
		t.Fatalf("send after two typos: %v", err)
	}
	h.waitFor("the trust box", func() bool { return v.prog.state == stateVerified && v.prog.trust != nil })
	screen := h.screen()
	h.loop.run(func() {
		if v.prog.trust.Checked || !contains(screen, "2 wrong codes were tried on this device") {
			t.Errorf("trust box %q checked=%v; screen:\n%s", v.prog.trust.Text, v.prog.trust.Checked, screen)
		}
		test.Tap(v.prog.trust)
	})
	h.waitFor("the pin, after the person ticked it", func() bool { return h.trusts(v.prog.conn.PeerKey) })
}

// A paired sender is named by the name its key was pinned under; the
// name it claims shows only when it differs, in the offer and in the
// progress alike.
func TestPairedSenderNamedByPin(t *testing.T) {
	b := newHarness(t) // asks before accepting
	sender := testid.New(t)
	b.pin("Work laptop", sender) // sendFrom's sender calls itself "Laptop"
	b.u.Start()
	rv := b.u.recv
	done := sendFrom(t, b, sender, true, event.Item{Text: "one"})
	b.waitFor("the offer dialog", func() bool { return rv.offer != nil })
	b.loop.run(func() {
		want := "Work laptop, calling itself ‘Laptop’, a trusted device, wants to send you 1 text"
		if !contains(rv.offerText, want) {
			t.Errorf("offer dialog %q, want %q", rv.offerText, want)
		}
		if !contains(rv.prog.peer.Text, "Work laptop, calling itself ‘Laptop’") {
			t.Errorf("progress names the sender %q", rv.prog.peer.Text)
		}
	})
	b.tap(rv.accept)
	if err := <-done; err != nil {
		t.Fatalf("paired send: %v", err)
	}
}
