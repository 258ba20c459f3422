//go:build !js

package app

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

// What a front end gets from the trust store through core/app: look-ups
// by name or fingerprint, "trust add" of a recent device, and how a
// discovered receiver relates to the trusted devices.
func TestTrustStoreDoor(t *testing.T) {
	n := newNode(t)
	s := n.Trust()
	desk := stores.Device{Name: "desk", Key: bytes.Repeat([]byte{1}, 32), PairedAt: time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)}
	phone := stores.Device{Name: "phone", Key: bytes.Repeat([]byte{2}, 32), PairedAt: time.Date(2026, 3, 5, 5, 6, 0, 0, time.UTC)}
	if err := s.Add(desk); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRecent(phone); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Find("DESK"); err != nil || !bytes.Equal(d.Key, desk.Key) {
		t.Errorf("Find(DESK) = %+v, %v", d, err)
	}
	if _, err := s.Find("phone"); !errors.Is(err, stores.ErrNoSuchDevice) {
		t.Errorf("Find of a device only recent: %v", err)
	}
	if st, d, err := n.TrustOf(nearby.Peer{Name: "desk", Fingerprint: desk.Fingerprint()}); err != nil || st != stores.TrustTrusted || d.Name != "desk" {
		t.Errorf("TrustOf(desk) = %v %+v %v", st, d, err)
	}
	if st, _, _ := n.TrustOf(nearby.Peer{Name: "Desk", Fingerprint: phone.Fingerprint()}); st != stores.TrustKeyChanged || st.String() != "key changed" {
		t.Errorf("TrustOf(desk with another key) = %v", st)
	}
	// Lists never show it as desk: they say it is not, with both keys.
	if st, d, _ := n.TrustOf(nearby.Peer{Name: "Desk", Fingerprint: phone.Fingerprint()}); st.Mark(d, phone.Fingerprint()) !=
		"NOT the trusted device: its key is "+phone.Fingerprint()+", the trusted one's "+desk.Fingerprint() {
		t.Errorf("desk with another key is marked %q", st.Mark(d, phone.Fingerprint()))
	}
	if m := stores.TrustTrusted.Mark(desk, desk.Fingerprint()); m != "trusted" {
		t.Errorf("a trusted device is marked %q", m)
	}
	if st, _, _ := n.TrustOf(nearby.Peer{Name: "tv"}); st != stores.TrustUnknown {
		t.Errorf("TrustOf(tv) = %v", st)
	}

	// "trust add": a recent device is trusted; a trusted one is said to
	// be already, by its name or as recent.
	if d, already, err := s.TrustRecent("desk"); err != nil || !already || d.Name != "desk" {
		t.Errorf("TrustRecent(desk) = %+v %v %v", d, already, err)
	}
	if _, _, err := s.TrustRecent("tv"); !errors.Is(err, stores.ErrNoSuchDevice) {
		t.Errorf("TrustRecent(tv): %v", err)
	}
	d, already, err := s.TrustRecent(phone.Fingerprint())
	if err != nil || already || d.Name != "phone" || d.PairedAt.IsZero() {
		t.Fatalf("TrustRecent(phone) = %+v %v %v", d, already, err)
	}
	if _, ok, err := s.Trusted(phone.Key); err != nil || !ok {
		t.Errorf("phone not trusted after TrustRecent: %v", err)
	}
	if d, already, err := s.TrustRecent("phone"); err != nil || !already || d.Name != "phone" {
		t.Errorf("TrustRecent(phone) again = %+v %v %v", d, already, err)
	}
	if ev := desk.Event(); ev.Name != "desk" || ev.Fingerprint != desk.Fingerprint() || ev.PairedAt != "2026-03-04T05:06:00Z" {
		t.Errorf("desk's event: %+v", ev)
	}
}
