//go:build !js

package app

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/nearby"
)

// What a front end gets from the trust store through core/app: look-ups
// by name or fingerprint, "trust add" of a recent device, and how a
// discovered receiver relates to the trusted devices.
func TestTrustStoreDoor(t *testing.T) {
	n := newNode(t)
	s := n.Trust()
	desk := Device{Name: "desk", Key: bytes.Repeat([]byte{1}, 32), PairedAt: time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)}
	phone := Device{Name: "phone", Key: bytes.Repeat([]byte{2}, 32), PairedAt: time.Date(2026, 3, 5, 5, 6, 0, 0, time.UTC)}
	if err := s.Add(desk); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRecent(phone); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Find("DESK"); err != nil || !bytes.Equal(d.Key, desk.Key) {
		t.Errorf("Find(DESK) = %+v, %v", d, err)
	}
	if _, err := s.Find("phone"); !errors.Is(err, ErrNoSuchDevice) {
		t.Errorf("Find of a device only recent: %v", err)
	}
	if st, d, err := n.TrustOf(nearby.Peer{Name: "desk", Fingerprint: desk.Fingerprint()}); err != nil || st != TrustTrusted || d.Name != "desk" {
		t.Errorf("TrustOf(desk) = %v %+v %v", st, d, err)
	}
	if st, _, _ := n.TrustOf(nearby.Peer{Name: "Desk", Fingerprint: phone.Fingerprint()}); st != TrustKeyChanged || st.String() != "key changed" {
		t.Errorf("TrustOf(desk with another key) = %v", st)
	}
	// Lists never show it as desk: they say it is not, with both keys.
	if st, d, _ := n.TrustOf(nearby.Peer{Name: "Desk", Fingerprint: phone.Fingerprint()}); st.Mark(d, phone.Fingerprint()) !=
		"NOT the trusted device: its key is "+phone.Fingerprint()+", the trusted one's "+desk.Fingerprint() {
		t.Errorf("desk with another key is marked %q", st.Mark(d, phone.Fingerprint()))
	}
	if m := TrustTrusted.Mark(desk, desk.Fingerprint()); m != "trusted" {
		t.Errorf("a trusted device is marked %q", m)
	}
	if st, _, _ := n.TrustOf(nearby.Peer{Name: "tv"}); st != TrustUnknown {
		t.Errorf("TrustOf(tv) = %v", st)
	}

	// "trust add": a recent device is trusted; a trusted one is said to
	// be already, by its name or as recent.
	if d, already, err := s.TrustRecent("desk"); err != nil || !already || d.Name != "desk" {
		t.Errorf("TrustRecent(desk) = %+v %v %v", d, already, err)
	}
	if _, _, err := s.TrustRecent("tv"); !errors.Is(err, ErrNoSuchDevice) {
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

// A record added as the schema's History reads back the same.
func TestHistoryStoreDoor(t *testing.T) {
	h, err := OpenHistory(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := event.History{At: "2026-12-03T10:00:00Z", Direction: HistorySent, PeerName: "desk", PeerFingerprint: "ABCD-EFGH-IJKL-MNOP",
		Auth: HistoryByCode, Files: 2, Bytes: 10, Names: []string{"a", "b"}, Folder: "/src", Paths: []string{"/src/a", "/src/b"},
		Outcome: HistoryFailed, ErrorKind: "wrong_code", Error: "wrong code", DurationMS: 1500}
	if _, err := h.Add(rec); err != nil {
		t.Fatal(err)
	}
	recs, aside, err := h.List()
	if err != nil || aside != nil || len(recs) != 1 || !reflect.DeepEqual(recs[0], rec) {
		t.Fatalf("List = %+v %v %v, want %+v", recs, aside, err, rec)
	}
	if got := recs[0].Time(); !got.Equal(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("Time() = %v", got)
	}
	if n, _, err := h.Clear(); err != nil || n != 1 {
		t.Errorf("Clear = %d, %v", n, err)
	}
	if outcome, kind := HistoryOutcome(ErrWrongCode); outcome != HistoryFailed || kind != "wrong_code" {
		t.Errorf("HistoryOutcome(ErrWrongCode) = %s %s", outcome, kind)
	}
}

// A receiver's link reads back as what it was made of.
func TestLinkDoor(t *testing.T) {
	l, err := ParseLink(PageLink("10.0.0.7", 41000, LinkCode(), "K7QX-M2PA-9RTE-WD4C"))
	if err != nil || l.Addr != "10.0.0.7:41000" || len(l.Code) != 12 || l.Fingerprint != "K7QX-M2PA-9RTE-WD4C" {
		t.Errorf("ParseLink = %+v, %v", l, err)
	}
}
