package ui

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// These tests pair devices through the UI and run the transfers that
// follow over loopback, through the real core, the handshake's pin checks
// included. Discovery is a function the test feeds.

// named sets the device name a harness shows to others.
func named(name string) harnessOpt {
	return func(c *Config) { c.App.Preferences().SetString(prefName, name) }
}

// askOff makes a harness accept every offer without asking.
func askOff(c *Config) { c.App.Preferences().SetBool(prefAsk, false) }

// browsing makes a harness's device list what the test sends on updates.
func browsing(updates <-chan []Device) harnessOpt {
	return func(c *Config) {
		c.Browse = func(ctx context.Context, onChange func([]Device)) error {
			for {
				select {
				case ds := <-updates:
					onChange(ds)
				case <-ctx.Done():
					return nil
				}
			}
		}
	}
}

// listening waits until the harness's receiver waits for a sender, and
// returns the receiver itself, its address and its code.
func (h *harness) listening() (gen int, addr, code string) {
	h.t.Helper()
	h.waitFor("the receiver to listen", func() bool {
		v := h.u.recv
		if !v.waiting() || !v.ready.Visible() {
			return false
		}
		gen, addr, code = v.gen, "127.0.0.1:"+strconv.Itoa(v.port), v.code
		return true
	})
	return gen, addr, code
}

// asDevice is how discovery would list the harness's receiver.
func (h *harness) asDevice(name, addr string) Device {
	return Device{Name: name, Fingerprint: h.id.Fingerprint(), Addrs: []string{addr}}
}

// trusts reports whether the harness's store pins key.
func (h *harness) trusts(key []byte) bool {
	_, ok, err := h.store.Trusted(key)
	if err != nil {
		h.t.Errorf("reading the trust store: %v", err)
	}
	return ok
}

// pin trusts other's key in h's store, as if the two had paired.
func (h *harness) pin(name string, other interface{ Public() []byte }) {
	h.t.Helper()
	if err := h.store.Add(stores.Device{Name: name, Key: other.Public()}); err != nil {
		h.t.Fatal(err)
	}
}

// chooseDevice selects the i-th listed device and empties the code.
func (h *harness) chooseDevice(i int) {
	h.loop.run(func() {
		v := h.u.send
		v.devList.Select(i)
		v.code.SetText("")
	})
}

// sendAndWait presses Send and waits for the result.
func (h *harness) sendAndWait() *progressPanel {
	h.t.Helper()
	v := h.u.send
	h.tap(v.sendBtn)
	h.waitFor("the send's result", func() bool { return v.prog.state != stateRunning && v.cancel == nil })
	return v.prog
}

// sendFrom sends items from d to the harness's receiver on a goroutine
// the test owns: with the receiver's code, or, when paired, with no code
// and the receiver's key pinned.
func sendFrom(t *testing.T, h *harness, d device, paired bool, items ...event.Item) <-chan error {
	t.Helper()
	_, addr, code := h.listening()
	cfg := app.SendConfig{Addrs: []string{addr}, Code: code, Items: items}
	if paired {
		cfg.Code, cfg.Pin = "", &stores.Device{Name: "Test desk", Key: h.id.Public()}
	}
	return goSend(t, d, cfg)
}

func TestTrustAfterCodeThenSendWithoutCode(t *testing.T) {
	loop := newUILoop(t)
	b := newHarnessOn(t, loop, named("Desk B"), askOff)
	b.u.Start()
	updates := make(chan []Device, 1)
	a := newHarnessOn(t, loop, noReceive, named("Laptop A"), browsing(updates))
	a.u.Start()
	src := writeFile(t, t.TempDir(), "first.bin", 50_000)
	a.drop(src)

	// First transfer: the device is unknown, a code is needed.
	_, addr, code := b.listening()
	updates <- []Device{b.asDevice("Desk B", addr)}
	sv := a.u.send
	a.waitFor("Desk B in the list", func() bool { return len(sv.devices) == 1 })
	a.chooseDevice(0)
	a.loop.run(func() {
		if sv.devices[0].status != stores.TrustUnknown {
			t.Errorf("an unpaired device is %v", sv.devices[0].status)
		}
		if !sv.sendBtn.Disabled() || sv.hint.Text != "Type the code the receiving device shows" {
			t.Errorf("without a code: disabled=%v hint %q", sv.sendBtn.Disabled(), sv.hint.Text)
		}
		test.Type(sv.code, code)
	})
	p := a.sendAndWait()
	a.check(func() bool {
		if p.state != stateVerified {
			t.Errorf("first send failed: %s (%s)", p.headline.Text, p.detail.Text)
			return false
		}
		if p.conn.Paired || p.trust == nil || p.trust.Checked {
			t.Errorf("after a code send: paired=%v, trust box %v", p.conn.Paired, p.trust)
			return false
		}
		if p.trust.Text != "Trust Desk B: next time, no code needed" {
			t.Errorf("trust box %q", p.trust.Text)
		}
		return true
	})
	rv := b.u.recv
	b.waitFor("B's result", func() bool { return rv.prog.state == stateVerified && rv.prog.trust != nil })
	b.loop.run(func() {
		if rv.prog.trust.Text != "Trust Laptop A: next time, no code needed" || rv.prog.trust.Checked {
			t.Errorf("B's trust box %q checked=%v", rv.prog.trust.Text, rv.prog.trust.Checked)
		}
	})
	// Both remember the other as a peer a code authenticated.
	for _, c := range []struct {
		h   *harness
		key []byte
	}{{a, b.id.Public()}, {b, a.id.Public()}} {
		recent, err := c.h.store.Recent()
		if err != nil || len(recent) != 1 || !bytes.Equal(recent[0].Key, c.key) {
			t.Errorf("recent peers %v, %v", recent, err)
		}
	}

	// Each ticks the box; unticked, the pin goes again.
	a.loop.run(func() { test.Tap(p.trust) })
	b.loop.run(func() { test.Tap(rv.prog.trust) })
	a.waitFor("A to trust B", func() bool { return a.trusts(b.id.Public()) && !p.trust.Disabled() })
	a.loop.run(func() { test.Tap(p.trust) })
	a.waitFor("A to untrust B", func() bool { return !a.trusts(b.id.Public()) && !p.trust.Disabled() })
	a.loop.run(func() { test.Tap(p.trust) })
	a.waitFor("A to trust B again", func() bool { return a.trusts(b.id.Public()) && !p.trust.Disabled() })
	b.waitFor("B to trust A", func() bool { return b.trusts(a.id.Public()) && !rv.prog.trust.Disabled() })
	devs, _ := a.store.Devices()
	if len(devs) != 1 || devs[0].Name != "Desk B" || devs[0].PairedAt.IsZero() {
		t.Errorf("A's trusted devices: %+v", devs)
	}
	a.waitFor("B marked trusted", func() bool { return sv.devices[0].status == stores.TrustTrusted })

	// Second transfer: B listens again on a new port, A sends with no code.
	b.loop.run(rv.listenAgain)
	var addr2 string
	b.waitFor("a new receiver", func() bool {
		if !rv.waiting() || rv.busy || !rv.ready.Visible() {
			return false
		}
		addr2 = "127.0.0.1:" + strconv.Itoa(rv.port)
		return true
	})
	updates <- []Device{b.asDevice("Desk B", addr2)}
	a.waitFor("B's new address", func() bool { return len(sv.devices) == 1 && sv.devices[0].Addrs[0] == addr2 })
	src2 := writeFile(t, t.TempDir(), "second.bin", 70_000)
	a.loop.run(func() {
		sv.sel.clear()
		sv.selectionChanged()
	})
	a.drop(src2)
	a.check(func() bool {
		sv.showProgress(false)
		sv.code.SetText("")
		if _, ok := sv.target(); !ok {
			t.Error("Desk B is no longer chosen")
			return false
		}
		if sv.sendBtn.Disabled() || !contains(sv.hint.Text, "no code needed") {
			t.Errorf("trusted, no code: disabled=%v hint %q", sv.sendBtn.Disabled(), sv.hint.Text)
		}
		return true
	})
	if s := a.screen(); !contains(s, "Trusted") || !contains(s, "No code needed") {
		t.Error("the device list does not mark Desk B trusted")
	}
	p = a.sendAndWait()
	a.check(func() bool {
		if p.state != stateVerified {
			t.Errorf("code-less send failed: %s (%s)", p.headline.Text, p.detail.Text)
			return false
		}
		if !p.conn.Paired || p.trust != nil {
			t.Errorf("code-less send: paired=%v, trust box offered: %v", p.conn.Paired, p.trust != nil)
		}
		return true
	})
	b.waitFor("B's second result", func() bool { return rv.prog.state == stateVerified })
	b.loop.run(func() {
		if !rv.prog.conn.Paired || rv.prog.trust != nil || !contains(rv.prog.peer.Text, "trusted device") {
			t.Errorf("B: paired=%v, trust box %v, peer %q", rv.prog.conn.Paired, rv.prog.trust != nil, rv.prog.peer.Text)
		}
	})
	for _, f := range []string{src, src2} {
		got, err := os.ReadFile(filepath.Join(b.dir, filepath.Base(f)))
		want, _ := os.ReadFile(f)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s did not arrive intact: %v", filepath.Base(f), err)
		}
	}
}

func TestRemovedTrustNeedsCodeAgain(t *testing.T) {
	loop := newUILoop(t)
	b := newHarnessOn(t, loop, named("Desk B"), askOff)
	updates := make(chan []Device, 1)
	a := newHarnessOn(t, loop, noReceive, named("Laptop A"), browsing(updates))
	a.pin("Desk B", b.id)
	b.pin("Laptop A", a.id)
	b.u.Start()
	a.u.Start()
	_, addr, code := b.listening()
	updates <- []Device{b.asDevice("Desk B", addr)}
	a.drop(writeFile(t, t.TempDir(), "a.txt", 100))
	sv := a.u.send
	a.waitFor("Desk B, trusted", func() bool { return len(sv.devices) == 1 && sv.devices[0].status == stores.TrustTrusted })
	a.chooseDevice(0)

	// B removes A in its Settings.
	set := b.u.settings
	var remove *widget.Button
	b.check(func() bool {
		b.u.ShowSettings()
		if len(set.trustedRows) != 1 || set.trustedRows[0].dev.Name != "Laptop A" {
			t.Errorf("B's Settings list %+v", set.trustedRows)
			return false
		}
		remove = set.trustedRows[0].remove
		return true
	})
	s := b.screen()
	for _, want := range []string{"Trusted devices", "Laptop A", a.id.Fingerprint() + "  ·  paired "} {
		if !contains(s, want) {
			t.Errorf("Settings do not show %q", want)
		}
	}
	b.tap(remove)
	b.waitFor("A to be removed", func() bool { return !b.trusts(a.id.Public()) && len(set.trustedRows) == 0 })
	b.loop.run(func() {
		if !contains(set.trustedNote.Text, "Laptop A is no longer trusted") {
			t.Errorf("note %q", set.trustedNote.Text)
		}
	})

	// A still trusts B, so it tries without a code, and is told to pair again.
	p := a.sendAndWait()
	var pairBtn *widget.Button
	a.check(func() bool {
		if p.state != stateFailed || p.headline.Text != "Not paired any more" || !contains(p.advice.Text, "Pair again") {
			t.Errorf("state %v headline %q advice %q (%s)", p.state, p.headline.Text, p.advice.Text, p.detail.Text)
			return false
		}
		for _, o := range p.actions.Objects {
			if btn, ok := o.(*widget.Button); ok && btn.Text == "Pair with a code" {
				pairBtn = btn
			}
		}
		return true
	})
	if pairBtn == nil {
		t.Fatal("no Pair with a code button")
	}
	a.tap(pairBtn)
	a.loop.run(func() {
		if !sv.form.Visible() || !sv.sendBtn.Disabled() || !contains(sv.hint.Text, "type the code it shows to pair again") {
			t.Errorf("after Pair with a code: form %v, disabled %v, hint %q", sv.form.Visible(), sv.sendBtn.Disabled(), sv.hint.Text)
		}
		test.Type(sv.code, code)
	})

	// With the code they pair again: B offers to trust A.
	p = a.sendAndWait()
	a.check(func() bool {
		if p.state != stateVerified || p.conn.Paired {
			t.Errorf("send with a code: %v paired=%v %s (%s)", p.state, p.conn.Paired, p.headline.Text, p.detail.Text)
			return false
		}
		if p.trust == nil || !p.trust.Checked {
			t.Error("A's box should show that A still trusts B")
		}
		return true
	})
	rv := b.u.recv
	b.waitFor("B's result", func() bool { return rv.prog.state == stateVerified })
	b.loop.run(func() {
		if rv.prog.trust == nil || rv.prog.trust.Checked {
			t.Error("B should offer to trust A again")
		}
	})

	// Removed on the sending end, the device is no longer marked and a
	// code is needed.
	a.loop.run(func() {
		a.u.ShowSettings()
		test.Tap(a.u.settings.trustedRows[0].remove)
	})
	a.waitFor("B to be removed", func() bool { return !a.trusts(b.id.Public()) && sv.devices[0].status == stores.TrustUnknown })
	a.loop.run(func() {
		if p.trust.Checked {
			t.Error("the result's box still says B is trusted")
		}
		sv.showProgress(false)
		sv.code.SetText("")
		if !sv.sendBtn.Disabled() || sv.hint.Text != "Type the code the receiving device shows" {
			t.Errorf("untrusted, no code: disabled=%v hint %q", sv.sendBtn.Disabled(), sv.hint.Text)
		}
	})
}

func TestKeyChangedDeviceIsMarkedAndNeedsCode(t *testing.T) {
	peer := startPeerReceiver(t, peerAccepts) // calls itself "Peer box"
	was := testid.New(t)                      // its key when it was paired
	desk := testid.New(t)                     // a trusted device
	updates := make(chan []Device, 1)
	a := newHarness(t, noReceive, browsing(updates))
	a.pin("Peer box", was)
	a.pin("Old desk", desk)
	a.u.Start()
	updates <- []Device{
		{Name: "Peer box", Fingerprint: peer.id.Fingerprint(), Addrs: []string{peer.addr()}},
		{Name: "Old desk", Fingerprint: desk.Fingerprint(), Addrs: []string{"127.0.0.1:9"}},
	}
	sv := a.u.send
	a.waitFor("both devices", func() bool { return len(sv.devices) == 2 })
	a.loop.run(func() {
		if sv.devices[0].status != stores.TrustKeyChanged || sv.devices[1].status != stores.TrustTrusted {
			t.Errorf("statuses %v, %v; want mismatch, trusted", sv.devices[0].status, sv.devices[1].status)
		}
	})
	s := a.screen()
	// Not shown as the trusted device: the row says it is not, with
	// both fingerprints.
	keys := "its key is " + peer.id.Fingerprint() + ", the trusted one's " + was.Fingerprint()
	notIt := "NOT the trusted device: " + keys
	for _, want := range []string{"NOT the trusted device", "I" + keys[1:], "Code needed", "Trusted", "No code needed"} {
		if !contains(s, want) {
			t.Errorf("device list does not show %q", want)
		}
	}

	// Never sent to without a code.
	a.drop(writeFile(t, t.TempDir(), "a.txt", 100))
	a.chooseDevice(0)
	a.loop.run(func() {
		d, _ := sv.target()
		if sv.paired(d) != nil || !sv.sendBtn.Disabled() || sv.hint.Text != notIt+". Another device may be using its name: send only with the code it shows, and pair again only if you know it is yours with a new key." {
			t.Errorf("key changed, no code: disabled=%v hint %q", sv.sendBtn.Disabled(), sv.hint.Text)
		}
		test.Type(sv.code, peer.r.Code())
	})
	p := a.sendAndWait()
	a.check(func() bool {
		if p.state != stateVerified || p.conn.Paired {
			t.Errorf("send with a code: %v paired=%v %s (%s)", p.state, p.conn.Paired, p.headline.Text, p.detail.Text)
			return false
		}
		// Trusting it is offered only under the warning that it is not
		// the trusted Peer box.
		if p.trust == nil || p.trust.Checked || p.trust.Text != "Trust Peer box anyway: next time, no code needed" {
			t.Errorf("trust box %v", p.trust)
		}
		return true
	})
	a.loop.run(func() {
		if !hasLabel(p.extra, "Peer box is "+notIt+". Another device may be using its name") {
			t.Errorf("the trust offer does not say it is not the trusted Peer box")
		}
	})
}

// hasLabel says whether a label under o starts with text.
func hasLabel(o fyne.CanvasObject, text string) bool {
	switch w := o.(type) {
	case *widget.Label:
		return strings.HasPrefix(w.Text, text)
	case *fyne.Container:
		for _, c := range w.Objects {
			if hasLabel(c, text) {
				return true
			}
		}
	}
	return false
}

func TestAutoAcceptFromTrustedDevices(t *testing.T) {
	b := newHarness(t) // asks before accepting
	sender := newDevice(t, "Laptop")
	b.pin("Laptop", sender)
	b.u.Start()
	rv, set := b.u.recv, b.u.settings
	b.loop.run(func() {
		if set.autoTrusted.Checked || set.autoTrusted.Disabled() {
			t.Errorf("auto-accept: checked=%v disabled=%v; want off and available", set.autoTrusted.Checked, set.autoTrusted.Disabled())
		}
	})

	// Off (the default): a trusted sender is asked about, as trusted.
	done := sendFrom(t, b, sender, true, event.Item{Text: "one"})
	b.waitFor("the offer dialog", func() bool { return rv.offer != nil })
	b.loop.run(func() {
		for _, want := range []string{"Laptop, a trusted device, wants to send you 1 text", "Trusted device: its key is the one you paired with"} {
			if !contains(rv.offerText, want) {
				t.Errorf("offer dialog does not show %q: %q", want, rv.offerText)
			}
		}
	})
	b.tap(rv.accept)
	if err := <-done; err != nil {
		t.Fatalf("paired send: %v", err)
	}
	b.waitFor("the result", func() bool { return rv.prog.state == stateVerified })

	// On: the next trusted offer goes through with no dialog.
	b.loop.run(func() {
		set.autoTrusted.SetChecked(true)
		set.save()
		rv.listenAgain()
	})
	done = sendFrom(t, b, sender, true, event.Item{Text: "two"})
	if err := <-done; err != nil {
		t.Fatalf("paired send: %v", err)
	}
	b.waitFor("the result", func() bool {
		return rv.prog.state == stateVerified && len(rv.texts) == 1 && rv.texts[0] == "two"
	})
	b.loop.run(func() {
		if rv.offers != 1 {
			t.Errorf("%d offer dialogs shown, want 1 (the first, before the setting)", rv.offers)
		}
		if !b.app.Preferences().Bool(prefAutoTrusted) {
			t.Error("the setting was not stored")
		}
	})

	// A sender that is not trusted is still asked.
	b.loop.run(rv.listenAgain)
	stranger := newDevice(t, "Laptop")
	done = sendFrom(t, b, stranger, false, event.Item{Text: "three"})
	b.waitFor("the offer dialog", func() bool { return rv.offer != nil })
	if s := b.screen(); contains(s, "trusted") || contains(rv.offerText, "trusted") {
		t.Error("the offer from a stranger says trusted")
	}
	b.tap(rv.decline)
	if err := <-done; !errors.Is(err, app.ErrDeclined) {
		t.Errorf("send after decline: %v", err)
	}

	// Without asking at all, the trusted setting has nothing to decide.
	b.loop.run(func() {
		set.ask.SetChecked(false)
		if !set.autoTrusted.Disabled() {
			t.Error("auto-accept stays available when nothing is asked")
		}
	})
}

func TestTrustedListShowsStoreErrors(t *testing.T) {
	h := newHarness(t, noReceive)
	d1 := testid.New(t)
	d2 := testid.New(t)
	h.pin("Zed's phone", d1)
	h.pin("Atelier", d2)
	set := h.u.settings
	h.loop.run(func() { h.u.ShowSettings() })
	h.loop.run(func() {
		if len(set.trustedRows) != 2 || set.trustedRows[0].dev.Name != "Atelier" || set.trustedRows[1].dev.Name != "Zed's phone" {
			t.Errorf("rows %+v", set.trustedRows)
		}
	})
	s := h.screen()
	for _, want := range []string{"Atelier", d2.Fingerprint(), "Zed's phone", d1.Fingerprint(), "paired " + pairedDate(time.Now())} {
		if !contains(s, want) {
			t.Errorf("Settings do not show %q", want)
		}
	}

	// A hand-broken file is reported, never reset.
	path := h.store.Path()
	broken := []byte(`{"version": 1, "devices": [{"name": "x"`)
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	h.loop.run(func() {
		h.u.ShowSend()
		h.u.ShowSettings()
		if len(set.trustedRows) != 0 || !contains(set.trustedNote.Text, "Can't read the trusted devices") || !contains(set.trustedNote.Text, path) {
			t.Errorf("rows %d, note %q", len(set.trustedRows), set.trustedNote.Text)
		}
	})
	if b, _ := os.ReadFile(path); !bytes.Equal(b, broken) {
		t.Error("the broken file was rewritten")
	}
}

func TestSendToBusyReceiver(t *testing.T) {
	// Another sender is connected and waiting for an answer, so the
	// receiver is busy: the UI's send is told so, not left hanging.
	peer := startPeerReceiver(t, peerAsks)
	goSend(t, newDevice(t, "First"), app.SendConfig{
		Addrs: []string{peer.addr()}, Code: peer.r.Code(), Items: []event.Item{{Text: "first"}},
	})
	for ev := range peer.events {
		if _, ok := ev.(event.Offer); ok {
			break
		}
	}
	h := newHarness(t, noReceive)
	h.drop(writeFile(t, t.TempDir(), "a.txt", 100))
	h.fill(peer.addr(), peer.r.Code())
	p := h.sendAndWait()
	h.loop.run(func() {
		if p.state != stateFailed || p.headline.Text != "The other device is busy" || !contains(p.advice.Text, "Try again") {
			t.Errorf("state %v headline %q advice %q (%s)", p.state, p.headline.Text, p.advice.Text, p.detail.Text)
		}
		if len(p.actions.Objects) != 2 || p.actions.Objects[1].(*widget.Button).Text != "Try again" {
			t.Errorf("actions %v", p.actions.Objects)
		}
	})
}
