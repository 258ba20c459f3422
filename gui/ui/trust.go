package ui

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
)

// This file is the UI's side of trusted devices: when to offer trust,
// how a device relates to the pins, and the store's changes reaching
// every view. The pins themselves are core/trust's; the handshake that
// checks them is core/secure's.

// noteCodePeer remembers a peer that a code just authenticated, so that
// `ferry trust add` can trust it later without its key being typed. It
// runs on the engine's goroutine (the store writes and syncs a file,
// which the UI goroutine should not wait for). A failure is not the
// transfer's: the list of recent peers is a convenience, and a store that
// can't be read or written says so in Settings and when Trust is ticked.
func (u *UI) noteCodePeer(ev transfer.Event) {
	c, ok := ev.(transfer.Connected)
	if !ok || c.Paired || u.cfg.Trust == nil || len(c.PeerKey) == 0 {
		return
	}
	d := trust.Device{Name: c.PeerName, Key: c.PeerKey, PairedAt: time.Now()}
	if d.Name == "" {
		d.Name = d.Fingerprint() // as offerTrust names it
	}
	_ = u.cfg.Trust.NoteRecent(d)
}

// pinnedLabel names a paired peer by the name its key is pinned under,
// adding the name it claims only when that differs: one trusted device
// cannot pose as another by its name. Without a pin (a store that can't
// be read now) it is the claimed name.
func (u *UI) pinnedLabel(key []byte, claimed string) string {
	if u.cfg.Trust == nil {
		return claimed
	}
	d, ok, err := u.cfg.Trust.Trusted(key)
	if err != nil || !ok {
		return claimed
	}
	if claimed == "" || strings.EqualFold(claimed, d.Name) {
		return d.Name
	}
	return d.Name + ", calling itself ‘" + claimed + "’"
}

// pinned reports whether key is a trusted device's: the receiver's
// ReceiverConfig.Paired. An unreadable store trusts nobody.
func (u *UI) pinned(key []byte) bool {
	if u.cfg.Trust == nil {
		return false
	}
	_, ok, err := u.cfg.Trust.Trusted(key)
	return err == nil && ok
}

// classify sets each device's trust status from the store and returns
// the list. It reads the store's file (no lock, a few hundred bytes) on
// the UI goroutine, so that marks follow the store's changes in order. A
// device added by address without a fingerprint can't be matched to a
// pin: it is unknown, and sending to it takes a code.
func (u *UI) classify(ds []Device) []Device {
	out := make([]Device, len(ds))
	copy(out, ds)
	for i := range out {
		d := &out[i]
		d.status, d.pin = trust.Unknown, trust.Device{}
		if u.cfg.Trust == nil || (d.Manual && d.Fingerprint == "") {
			continue
		}
		st, pin, err := u.cfg.Trust.Classify(d.Name, d.Fingerprint)
		if err != nil {
			// Nobody is trusted while the store can't be read; Settings
			// shows why.
			continue
		}
		d.status = st
		if st == trust.Trusted {
			d.pin = pin
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
		_, ok, err := u.cfg.Trust.Trusted(p.conn.PeerKey)
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
func (u *UI) offerTrust(p *progressPanel) {
	p.trust = nil
	c := p.conn
	if u.cfg.Trust == nil || c.Paired || len(c.PeerKey) == 0 {
		return
	}
	// A device that gave no name is pinned under its fingerprint: the
	// store needs a name, and that one is unique.
	dev := trust.Device{Name: c.PeerName, Key: bytes.Clone(c.PeerKey)}
	if dev.Name == "" {
		dev.Name = dev.Fingerprint()
	}
	name := dev.Name
	_, trusted, err := u.cfg.Trust.Trusted(dev.Key)
	if err != nil {
		p.extra.Add(&widget.Label{Text: "Can't offer to trust " + name + ": " + err.Error(), Wrapping: fyne.TextWrapWord, Importance: widget.WarningImportance})
		return
	}
	label := "Trust " + name + ": next time, no code needed"
	var warn *widget.Label
	if c.WrongCodes > 0 && !trusted {
		// The code may have been guessed: say so where the person
		// decides, and leave the box unticked.
		warn = &widget.Label{Text: plural(c.WrongCodes, "wrong code was", "wrong codes were") +
			" tried on this device before this sender's code was right. If they were not all yours, someone may have guessed the code: trust " +
			name + " only if you know this is the device you meant.", Wrapping: fyne.TextWrapWord, Importance: widget.WarningImportance}
		label = "Trust " + name + " anyway: next time, no code needed"
	}
	check := widget.NewCheck(label, nil)
	check.SetChecked(trusted)
	note := &widget.Label{
		Text:     "Pins its key, fingerprint " + dev.Fingerprint() + ". Remove it any time in Settings.",
		SizeName: theme.SizeNameCaptionText, Wrapping: fyne.TextWrapWord, Importance: widget.LowImportance,
	}
	check.OnChanged = func(on bool) {
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
	p.trust = check
	box := container.NewVBox(widget.NewSeparator())
	if warn != nil {
		box.Add(warn)
	}
	box.Add(check)
	box.Add(note)
	p.extra.Add(box)
}

// setTrusted pins d's key, or removes the pin. It writes the store: call
// it off the UI goroutine.
func (u *UI) setTrusted(d trust.Device, on bool) error {
	if on {
		d.PairedAt = time.Now()
		return u.cfg.Trust.Add(d)
	}
	// By the full fingerprint: a name may be shared by two devices. A
	// pin already gone (removed in Settings, or by the CLI) is what was
	// asked for.
	_, err := u.cfg.Trust.Remove(d.Fingerprint())
	if errors.Is(err, trust.ErrNotFound) {
		return nil
	}
	return err
}

// connLine names the peer of a connection, with its fingerprint, and
// says when the pins authenticated it.
func connLine(c transfer.Connected) string {
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
