package mobile

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

// The decisions after a transfer are core/app's (AfterCode, Result's
// Clipboard); this file keeps them for the app to read once the
// transfer has ended, and carries out the one a person makes (Pin).

// settle takes core/app's decisions about an ended transfer's result:
// whether to offer trusting the peer, whether its texts go to the
// clipboard. A person can be asked on a phone, so neither is made
// silently, except a trusted device's text, which goes there unasked.
func (t *Transfer) settle(res app.Result) {
	step, err := t.n.app.AfterCode(res, false, true)
	if err != nil {
		t.n.warn(fmt.Errorf("remembering the device a code authenticated: %w", err))
	}
	clip, text := res.Clipboard(true)
	t.mu.Lock()
	t.pin, t.clip, t.clipText = step, clip, text
	t.mu.Unlock()
}

// PinAdvice says, once the transfer has ended (its "done" event), whether
// to offer the person to trust the peer from now on (Pin), as core/app
// decides: "ask" after a transfer made with a code with a device not yet
// trusted; "ask_wrong_codes" when, besides, wrong codes were tried before
// the right one (say so: the peer may be a guesser who got lucky); ""
// otherwise (a failed or paired transfer, a device trusted already).
func (t *Transfer) PinAdvice() string {
	defer quiet()
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.pin.Do != app.PinAsk:
		return ""
	case t.pin.WrongCodes > 0:
		return "ask_wrong_codes"
	}
	return "ask"
}

// PinWarning is what to say before offering to trust the peer (PinAdvice
// "ask"), or "" when there is nothing to warn of: when the peer gave the
// name of a device already trusted here but another key, the words say
// it is NOT that device, with both fingerprints, and what to do about
// it. A phone app shows them above its question, as the CLI and the
// desktop app do.
func (t *Transfer) PinWarning() string {
	defer quiet()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pin.Do != app.PinAsk || t.pin.Named.Key == nil {
		return ""
	}
	return stores.KeyChangedWarning(t.pin.Named, t.pin.Peer.Fingerprint()) + ". " + stores.KeyChangedAdvice
}

// Pin trusts the peer of an ended transfer from now on, when PinAdvice
// offered it: later transfers between the two need no code (SendOptions
// with a listed peer and no Code; ReceiveOptions.AcceptTrusted).
func (t *Transfer) Pin() (err error) {
	defer guard("trusting the device", &err)
	t.mu.Lock()
	step := t.pin
	t.mu.Unlock()
	if step.Do != app.PinAsk {
		return errors.New("trusting the device: nothing to trust (see PinAdvice)")
	}
	if _, _, err := t.n.app.Pin(step.Peer); err != nil {
		return fmt.Errorf("trusting the device: %w", err)
	}
	return nil
}

// ClipboardAdvice says, once a receiving transfer has ended, whether the
// texts it received go to the clipboard (ClipboardText), as core/app
// decides: "put" for a trusted device's, "ask" (the person first) for
// any other's, "" when no text came. The clipboard is the app's.
func (t *Transfer) ClipboardAdvice() string {
	defer quiet()
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.clip {
	case app.ClipPut:
		return "put"
	case app.ClipAsk:
		return "ask"
	}
	return ""
}

// ClipboardText is the texts received, separated by blank lines, when
// ClipboardAdvice is not "".
func (t *Transfer) ClipboardText() string {
	defer quiet()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.clipText
}

// trusted is the trusted device a listed peer is, if it is one.
func (n *Node) trusted(p peer) (*stores.Device, error) {
	st, d, err := n.app.TrustOf(nearby.Peer{Name: p.Name, Fingerprint: p.Fingerprint})
	if err != nil {
		return nil, err
	}
	if st != stores.TrustTrusted {
		return nil, nil
	}
	return &d, nil
}
