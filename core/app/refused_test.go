//go:build !js

package app

import (
	"os"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/trust"
)

// What the receiver says about each sender refused for coming without a
// code (moved here from cli/ferry's TestRefusalText with the wording).
func TestRefused(t *testing.T) {
	n := namedNode(t, "desk")
	laptop := trust.Device{Name: "laptop", Key: testid.New(t).Public()}
	stranger := trust.Device{Name: "x", Key: testid.New(t).Public()}
	if err := n.trust.NoteRecent(stores.Device(laptop)); err != nil {
		t.Fatal(err)
	}
	notTrusted := func(d trust.Device) event.Refused {
		return event.Refused{Addr: "10.1.2.3:40000", Reason: event.NotTrusted, PeerFingerprint: d.Fingerprint(), PeerKey: d.Key}
	}
	off := &Node{} // trusted devices off
	tests := []struct {
		name              string
		e                 event.Refused
		n                 *Node
		reason, msg, hint string
	}{
		{"known by a code once", notTrusted(laptop), n, "not_trusted",
			"refused laptop (" + laptop.Fingerprint() + "): it sent without a code, and this device does not trust it", pairAgainHint},
		{"never seen", notTrusted(stranger), n, "not_trusted",
			"refused " + stranger.Fingerprint() + ": it sent without a code, and this device does not trust it", pairAgainHint},
		{"stale pin", event.Refused{Addr: "[fe80::1%eth1]:40000", Reason: event.PinMismatch}, n, "pin_mismatch",
			"refused a sender at fe80::1%eth1: it sent without a code, expecting another key for this device (this device made a new key since they paired, or the sender meant another device)", pairAgainHint},
		{"trust off", event.Refused{Addr: "10.1.2.3:40000", Reason: event.TrustOff}, off, "trust_off",
			"refused a sender at 10.1.2.3: it sent without a code, and trusted devices are off on this device", "send with the code;"},
		{"code to the daemon", event.Refused{Addr: "10.1.2.3:40000", Reason: event.CodesOff}, n, "codes_off",
			"refused a sender at 10.1.2.3: it sent with a code, and this receiver takes trusted devices only (no code was checked)", pairFirstHint},
		{"after a flood", event.Refused{Addr: "10.1.2.3:40000", Reason: event.PinMismatch, Dropped: 7}, n, "pin_mismatch",
			"(and 7 refusals before it not shown: too many at once)", pairAgainHint},
	}
	for _, tt := range tests {
		ev := tt.n.refused(tt.e)
		if ev.Kind != "not_paired" || string(ev.Reason) != tt.reason || !strings.Contains(ev.Message, tt.msg) || !strings.HasPrefix(ev.Hint, tt.hint) {
			t.Errorf("%s: %+v", tt.name, ev)
		}
		// Core's words are every front end's: the CLI adds its flags.
		if strings.Contains(ev.Hint, "--") || strings.Contains(ev.Hint, "'ferry") {
			t.Errorf("%s: the hint names a command line: %q", tt.name, ev.Hint)
		}
	}

	// The trust file broke while the receiver ran: it says so.
	os.WriteFile(n.Trust().Path(), []byte("{broken"), 0o600)
	ev := n.refused(notTrusted(laptop))
	if ev.Reason != "trust_off" || !strings.Contains(ev.Message, "the trust file cannot be read: ") || !strings.Contains(ev.Message, n.Trust().Path()) {
		t.Errorf("broken file: %+v", ev)
	}
}
