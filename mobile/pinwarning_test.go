package mobile

import (
	"strings"
	"testing"
)

// A second device under a trusted device's name, with its own key, sends
// by code: the phone may still ask whether to trust it, but PinWarning
// first says that it is NOT the trusted device, naming both keys. The
// trusted device's own transfers warn of nothing.
func TestPinWarningForANameWithAnotherKey(t *testing.T) {
	phone, recvEv := newTestNode(t, "phone")
	laptop, sendEv := newTestNode(t, "laptop")
	impostor, impEv := newTestNode(t, "laptop")

	send := func(from *Node, fromEv *recorder) *Transfer {
		t.Helper()
		opts := loopbackReceive(t)
		opts.AutoAccept = true
		rt, err := phone.Receive(opts)
		if err != nil {
			t.Fatal(err)
		}
		st := sendHi(t, from, rt.Port(), rt.Code())
		for _, x := range []struct {
			ev *recorder
			tr *Transfer
		}{{fromEv, st}, {recvEv, rt}} {
			if end := x.ev.terminal(t, x.tr.ID(), waitLong); end.method != "done" {
				t.Fatalf("ended %s(%s)", end.method, end.arg)
			}
		}
		return rt
	}
	rt := send(laptop, sendEv)
	if w := rt.PinWarning(); w != "" {
		t.Errorf("warning before any device is trusted: %q", w)
	}
	if err := rt.Pin(); err != nil {
		t.Fatal(err)
	}

	rt = send(impostor, impEv)
	if a := rt.PinAdvice(); a != "ask" {
		t.Fatalf("pin advice for the impostor: %q, want ask", a)
	}
	w := rt.PinWarning()
	for _, want := range []string{"NOT the trusted device", impostor.Fingerprint(), laptop.Fingerprint()} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q does not say %q", w, want)
		}
	}
}
