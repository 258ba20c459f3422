package ui

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// This file is the UI's side of trusted devices: when to offer trust,
// how a device relates to the pins, and the store's changes reaching
// every view. The pins themselves are core/trust's; the handshake that
// checks them is core/secure's.

// pinOffer is what the result of a transfer by code offers about
// trusting its peer: the Node's decision (AfterCode, which also
// remembers the peer for `ferry trust add`), made off the UI goroutine
// since it writes the store.
type pinOffer struct {
	step    app.PinStep
	err     error // the store could not be read or written
	trusted bool  // the peer is trusted already: the box shows ticked
}

// pinOfferFor asks the Node about res's peer. A person can always be
// asked here: the result shows the box.
func (u *UI) pinOfferFor(res app.Result) pinOffer {
	if u.trust == nil || res.Err != nil || res.Paired || len(res.Peer.Key) == 0 {
		return pinOffer{}
	}
	step, err := u.cfg.Node.AfterCode(res, false, true)
	if err != nil {
		return pinOffer{step: step, err: err}
	}
	_, trusted, err := u.trust.Trusted(res.Peer.Key)
	if step.Do == app.PinNothing && (trusted || err != nil) {
		// Trusted already (or the store cannot say): the box shows it,
		// so that unticking removes the pin.
		step.Peer = stores.Device{Name: firstName(res.Peer.Name, res.Peer.Fingerprint()), Key: res.Peer.Key}
	}
	return pinOffer{step: step, err: err, trusted: trusted}
}

func firstName(name, fp string) string {
	if name == "" {
		return fp
	}
	return name
}

// pinnedLabel names a paired peer by the name its key is pinned under
// (event.Connected.PinnedName), adding the name it claims only when
// that differs: one trusted device cannot pose as another by its name.
// Without a pin (a store that can't be read now) it is the claimed name.
func pinnedLabel(pinned, claimed string) string {
	if pinned == "" {
		return claimed
	}
	if claimed == "" || strings.EqualFold(claimed, pinned) {
		return pinned
	}
	return pinned + ", calling itself ‘" + claimed + "’"
}

// classify sets each device's trust status from the store and returns
// the list. It reads the store's file (a few hundred bytes) once per
// list, on the UI goroutine, so that marks follow the store's changes in
// order. A device added by address without a fingerprint can't be
// matched to a pin: it is unknown, and sending to it takes a code.
func (u *UI) classify(ds []Device) []Device {
	out := make([]Device, len(ds))
	copy(out, ds)
	// One reading of the trust file for the whole list: a flood of
	// made-up receivers brings up to 256 ten times a second.
	var classify func(name, fingerprint string) (stores.TrustStatus, stores.Device)
	if u.trust != nil {
		// Nobody is trusted while the store can't be read (classify
		// stays nil); Settings shows why.
		classify, _ = u.trust.Classifier()
	}
	for i := range out {
		d := &out[i]
		d.status, d.pin, d.named = stores.TrustUnknown, stores.Device{}, stores.Device{}
		if classify == nil || (d.Manual && d.Fingerprint == "") {
			continue
		}
		st, pin := classify(d.Name, d.Fingerprint)
		d.status = st
		switch st {
		case stores.TrustTrusted:
			d.pin = pin
		case stores.TrustKeyChanged:
			d.named = pin
		}
	}
	return out
}

// trustChanged shows a change to the store in every view: the device
// list's marks and the Settings list.
func (u *UI) trustChanged() {
	u.send.found = u.classify(u.send.found)
	u.send.manual = u.classify(u.send.manual)
	u.send.devicesChanged()
	u.settings.loadTrusted()
	for _, p := range []*progressPanel{u.send.prog, u.recv.prog} {
		if p.trust == nil {
			continue
		}
		_, ok, err := u.trust.Trusted(p.conn.PeerKey)
		if err == nil {
			setQuietly(p.trust, ok)
		}
	}
}

// offerTrust adds to a result panel the checkbox that trusts the peer of
// a transfer that a code authenticated: checked, its key is pinned and
// the next transfer between the two devices needs no code; unchecked
// again, the pin is removed. A transfer that pins already authenticated
// offers nothing (the device is trusted; Settings removes it).
func (u *UI) offerTrust(p *progressPanel, pin pinOffer) {
	p.trust = nil
	dev := pin.step.Peer
	if len(dev.Key) == 0 {
		return
	}
	name := dev.Name
	if pin.err != nil {
		p.extra.Add(&widget.Label{Text: "Can't offer to trust " + name + ": " + pin.err.Error(), Wrapping: fyne.TextWrapWord, Importance: widget.WarningImportance})
		return
	}
	label := "Trust " + name + ": next time, no code needed"
	var warn *widget.Label
	if n := pin.step.WrongCodes; n > 0 && !pin.trusted {
		// The code may have been guessed: say so where the person
		// decides, and leave the box unticked.
		warn = &widget.Label{Text: plural(n, "wrong code was", "wrong codes were") +
			" tried on this device before this sender's code was right. If they were not all yours, someone may have guessed the code: trust " +
			name + " only if you know this is the device you meant.", Wrapping: fyne.TextWrapWord, Importance: widget.WarningImportance}
		label = "Trust " + name + " anyway: next time, no code needed"
	}
	var notIt *widget.Label
	if named := pin.step.Named; len(named.Key) > 0 && !pin.trusted {
		// A trusted device has its name: say it is not that one where
		// the person decides.
		notIt = &widget.Label{Text: name + " is " + stores.KeyChangedWarning(named, dev.Fingerprint()) + ". " +
			sentence(stores.KeyChangedAdvice) + ".", Wrapping: fyne.TextWrapWord, Importance: widget.DangerImportance}
		label = "Trust " + name + " anyway: next time, no code needed"
	}
	check := widget.NewCheck(label, nil)
	check.SetChecked(pin.trusted)
	check.OnChanged = func(on bool) { u.trustTicked(check, dev, on) }
	p.trust = check
	box := container.NewVBox(widget.NewSeparator())
	if notIt != nil {
		box.Add(notIt)
	}
	if warn != nil {
		box.Add(warn)
	}
	box.Add(check)
	box.Add(&widget.Label{
		Text:     "Pins its key, fingerprint " + dev.Fingerprint() + ". Remove it any time in Settings.",
		SizeName: theme.SizeNameCaptionText, Wrapping: fyne.TextWrapWord, Importance: widget.LowImportance,
	})
	p.extra.Add(box)
}

// trustTicked pins or unpins dev as the box says, off the UI goroutine.
func (u *UI) trustTicked(check *widget.Check, dev stores.Device, on bool) {
	check.Disable()
	u.goroutine(func() {
		err := u.setTrusted(dev, on)
		u.do(func() {
			check.Enable()
			if err != nil {
				setQuietly(check, !on) // without writing again
				dialog.ShowError(err, u.cfg.Window)
				return
			}
			u.trustChanged()
		})
	})
}

// setTrusted pins d's key, or removes the pin. It writes the store: call
// it off the UI goroutine.
func (u *UI) setTrusted(d stores.Device, on bool) error {
	if on {
		_, _, err := u.cfg.Node.Pin(d)
		return err
	}
	return u.trust.Unpin(d)
}

// connLine names the peer of a connection, with its fingerprint, and
// says when the pins authenticated it.
func connLine(c event.Connected) string {
	s := peerLine(c.PeerName, c.PeerFingerprint)
	if c.Paired {
		s += "  ·  trusted device"
	}
	return s
}

// pairedDate is when a device was trusted, as a person reads it.
func pairedDate(t time.Time) string {
	return t.Local().Format("2 Jan 2006")
}

// setQuietly sets a checkbox without running its OnChanged.
func setQuietly(c *widget.Check, on bool) {
	f := c.OnChanged
	c.OnChanged = nil
	c.SetChecked(on)
	c.OnChanged = f
}
