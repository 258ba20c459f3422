package ui

import (
	"errors"
	"fmt"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// Two typos, then the right code: the transfer goes through at once, and
// the Trust box says so before the person ticks it.
func TestTrustBoxAfterTypos(t *testing.T) {
	h := newHarness(t, askOff)
	h.u.Start()
	v := h.u.recv
	_, addr, _ := h.listening()
	typist := newDevice(t, "Laptop")
	for i := range 2 {
		err := typist.Send(t.Context(), app.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 500000+i),
			Items: []event.Item{{Text: "x"}}}).Wait().Err
		if !errors.Is(err, app.ErrWrongCode) {
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
	sender := newDevice(t, "Laptop")
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
