//go:build !js

package app

import (
	"bytes"
	"fmt"
	"net"

	"github.com/ferry-project/ferry/core/app/event"
)

// The hints of a refusal, in core/errkind's form (lowercase, no period)
// and like its words front-end neutral: a front end adds its own way of
// doing it (the CLI its --trust, its 'ferry trust list').
const (
	// pairAgainHint is how a refused sender pairs again.
	pairAgainHint = "pair again: send once with the code, then answer yes to trust"
	// trustFileHint is what a sender does while the trust file is
	// unusable here, and where the reason is shown.
	trustFileHint = "send with the code; the list of trusted devices on this device says what is wrong with the trust file"
	// pairFirstHint is how a device becomes one that a receiver taking
	// trusted devices only takes files from.
	pairFirstHint = "to take files from that device, pair it once: receive from it with a code, then answer yes to trust"
)

// refused words a sender that the handshake refused in paired mode, or
// with a code at a paired-only receiver. It
// does not end the receiver (anyone could otherwise stop it), which goes
// on waiting for a sender with the code.
func (n *Node) refused(e event.Refused) event.Refused {
	ev := event.Refused{Kind: "not_paired", PeerFingerprint: e.PeerFingerprint, Addr: e.Addr, Dropped: e.Dropped, PeerKey: e.PeerKey, Err: e.Err}
	host := e.Addr
	if h, _, err := net.SplitHostPort(e.Addr); err == nil {
		host = h
	}
	store := n.trust
	switch {
	case e.Reason == event.NotTrusted && store != nil:
		if _, _, err := store.Trusted(e.PeerKey); err != nil {
			ev.Reason, ev.Hint = event.TrustOff, trustFileHint
			ev.Message = fmt.Sprintf("refused %s: it sent without a code, and the trust file cannot be read: %v", e.PeerFingerprint, err)
			break
		}
		who := e.PeerFingerprint
		if rec, err := store.Recent(); err == nil {
			for _, d := range rec {
				if bytes.Equal(d.Key, e.PeerKey) {
					who = d.Name + " (" + who + ")" // names in the store hold no control characters
				}
			}
		}
		ev.Reason, ev.Hint = event.NotTrusted, pairAgainHint
		ev.Message = fmt.Sprintf("refused %s: it sent without a code, and this device does not trust it", who)
	case e.Reason == event.CodesOff:
		ev.Reason, ev.Hint = "codes_off", pairFirstHint
		ev.Message = fmt.Sprintf("refused a sender at %s: it sent with a code, and this receiver takes trusted devices only (no code was checked)", host)
	case e.Reason == event.PinMismatch:
		ev.Reason, ev.Hint = event.PinMismatch, pairAgainHint
		ev.Message = fmt.Sprintf("refused a sender at %s: it sent without a code, expecting another key for this device (this device made a new key since they paired, or the sender meant another device)", host)
	default: // PairedOff: the trust file was unusable from the start
		ev.Reason, ev.Hint = event.TrustOff, trustFileHint
		ev.Message = fmt.Sprintf("refused a sender at %s: it sent without a code, and trusted devices are off on this device", host)
	}
	if e.Dropped > 0 {
		ev.Message += fmt.Sprintf(" (and %d refusals before it not shown: too many at once)", e.Dropped)
	}
	return ev
}
