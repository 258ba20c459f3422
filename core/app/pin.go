//go:build !js

package app

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ferry-project/ferry/core/app/stores"
)

// Pin says what follows a transfer made with a code, about pinning the
// peer's key so that later transfers need none.
type Pin int

const (
	// PinNothing: nothing to decide (the transfer failed or was paired,
	// the peer is this device itself or trusted already, or trusted
	// devices are off).
	PinNothing Pin = iota
	// PinNow: pin it (Node.Pin) without asking: the person asked for
	// it beforehand (--trust) and no wrong code was tried.
	PinNow
	// PinAsk: ask the person; when WrongCodes > 0 the question must say
	// that wrong codes were tried before this one was right, since the
	// peer may be a guesser who got lucky.
	PinAsk
	// PinRefused: the person asked for it beforehand, but wrong codes
	// were tried and nobody can be asked now: it is not pinned, and the
	// front end says so (and how to pair later).
	PinRefused
	// PinHint: not pinned; the front end may say how to pair later.
	PinHint
)

// PinStep is the decision AfterCode makes, with what it is about.
type PinStep struct {
	Do         Pin
	Peer       stores.Device // the peer, named (its fingerprint when it gave no name)
	WrongCodes int
	// Named is the trusted device whose name the peer gave, when its key
	// is another (stores.TrustKeyChanged); zero otherwise. Whatever asks or
	// offers to trust the peer must first say that it is NOT that device
	// (stores.KeyChangedWarning, stores.KeyChangedAdvice).
	Named stores.Device
}

// AfterCode decides, after a transfer made with a code, whether the
// peer's key is pinned: want is the person's wish given beforehand
// (--trust), canAsk whether a person can be asked now. It never pins
// silently when wrong codes were tried before the right one. It also
// remembers the peer as recently authenticated by a code (for "trust
// add"); an error doing that is returned with PinNothing.
func (n *Node) AfterCode(res Result, want, canAsk bool) (PinStep, error) {
	peer := stores.Device{Name: res.Peer.Name, Key: res.Peer.Key}
	if res.Err != nil || res.Paired || n.trust == nil || len(peer.Key) != 32 || bytes.Equal(peer.Key, n.id.Public()) {
		return PinStep{}, nil
	}
	if peer.Name == "" {
		peer.Name = peer.Fingerprint()
	}
	step := PinStep{Peer: peer, WrongCodes: res.WrongCodes}
	if err := n.trust.NoteRecent(peer); err != nil {
		return step, err
	}
	if _, ok, err := n.trust.Trusted(peer.Key); err != nil || ok {
		return step, nil
	}
	if st, d, err := n.trust.Classify(peer.Name, peer.Fingerprint()); err == nil && st == stores.TrustKeyChanged {
		step.Named = d
	}
	switch {
	case want && res.WrongCodes == 0:
		step.Do = PinNow
	case canAsk:
		step.Do = PinAsk
	case want:
		step.Do = PinRefused
	default:
		step.Do = PinHint
	}
	return step, nil
}

// Pin trusts d's key from now on; it returns d as pinned, and the other
// trusted devices of the same name: if one was the same device before it
// made a new key, a person may want to remove it.
func (n *Node) Pin(d stores.Device) (pinned stores.Device, sameName []stores.Device, err error) {
	if n.trust == nil {
		return d, nil, fmt.Errorf("trusted devices are off")
	}
	d.PairedAt = n.now()
	if err := n.trust.Add(d); err != nil {
		return d, nil, err
	}
	devs, err := n.trust.Devices()
	if err != nil {
		return d, nil, nil
	}
	for _, o := range devs {
		if strings.EqualFold(o.Name, d.Name) && !bytes.Equal(o.Key, d.Key) {
			sameName = append(sameName, o)
		}
	}
	return d, sameName, nil
}
