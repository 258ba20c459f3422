package ui

import (
	"fmt"
	"net"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/app/event"
)

// This file is the receiving end of a refused code-less sender: what the
// Receive view says when core/transfer reports Refused. The sending end
// learns it from its own failed send (errors.go); here the person who
// removed the pin, or whose key changed, is told which device it was
// and how to pair again. The receiver goes on waiting: the code stays
// valid, since a refusal any device can provoke must not end it.

// maxNoticeName caps a device name in a notice. Names in the trust store
// are what a peer called itself (at most 255 bytes, no control
// characters); a long one would push the fix out of view.
const maxNoticeName = 48

// refusalText says in plain words why the receiver refused a sender that
// came without a code, and what fixes it. It reads the trust store to
// name the sender.
func (u *UI) refusalText(e event.Refused) string {
	host := e.Addr
	if h, _, err := net.SplitHostPort(e.Addr); err == nil {
		host = h
	}
	who := e.PeerFingerprint
	if name := u.trust.KnownName(e.PeerFingerprint); name != "" {
		who = capName(name) + " (" + e.PeerFingerprint + ")"
	}
	var s string
	switch {
	case e.Reason == "trust_off" && e.PeerFingerprint != "":
		// The pin check refused it because the file can't be read,
		// not because its pin was removed: pairing again won't help.
		s = who + " tried to send without a code, but trusted transfers are off here: the list of trusted devices can't be read (Settings says why). Send with the code."
	case e.Reason == "not_trusted":
		s = who + " tried to send without a code, but this device does not trust it. To pair again: send once with the code and tick Trust."
	case e.Reason == "pin_mismatch":
		s = "A device at " + host + " tried to send without a code, but it expected another key for this device (this device made a new key, or it meant another device). Pair again with the code."
	default: // trusted devices are off
		s = "A device at " + host + " tried to send without a code, but trusted transfers are off here; send with the code."
	}
	if e.Dropped > 0 {
		s += fmt.Sprintf(" (%s before it not shown: too many at once.)", plural(e.Dropped, "more attempt", "more attempts"))
	}
	return s
}

// capName shortens a peer-chosen name for a sentence, on a rune boundary.
func capName(s string) string {
	if utf8.RuneCountInString(s) <= maxNoticeName {
		return s
	}
	r := []rune(s)
	return string(r[:maxNoticeName-1]) + "…"
}
