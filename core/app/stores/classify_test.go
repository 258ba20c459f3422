//go:build !js

package stores

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// trustStoreWith is a trust store in a temporary folder with n devices.
func trustStoreWith(tb testing.TB, n int) (*Trust, []Device) {
	tb.Helper()
	s, err := OpenTrust(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	var devs []Device
	for i := range n {
		d := Device{Name: fmt.Sprint("device ", i), Key: bytes.Repeat([]byte{byte(i + 1)}, 32), PairedAt: time.Now()}
		if err := s.Add(d); err != nil {
			tb.Fatal(err)
		}
		devs = append(devs, d)
	}
	return s, devs
}

// TestClassifierAgrees: one reading of the file classifies as Classify
// does, trusted, key changed and unknown.
func TestClassifierAgrees(t *testing.T) {
	s, devs := trustStoreWith(t, 3)
	classify, err := s.Classifier()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, fp string }{
		{"device 1", devs[1].Fingerprint()},
		{"DEVICE 2", devs[0].Fingerprint()},
		{"device 2", "N0AD-AAAA-BBBB-CCCC"},
		{"tv", ""},
	} {
		st, d, err := s.Classify(c.name, c.fp)
		if err != nil {
			t.Fatal(err)
		}
		st2, d2 := classify(c.name, c.fp)
		if st != st2 || d.Name != d2.Name || !bytes.Equal(d.Key, d2.Key) {
			t.Errorf("%q %s: Classify %v %q, Classifier %v %q", c.name, c.fp, st, d.Name, st2, d2.Name)
		}
	}
}

// BenchmarkClassifyList classifies a full browse list (256 receivers,
// the cap under an mDNS flood) against 5 trusted devices: a reading of
// the file per row (Classify, the baseline) and one per list
// (Classifier).
func BenchmarkClassifyList(b *testing.B) {
	s, _ := trustStoreWith(b, 5)
	row := func(i int) (string, string) { return fmt.Sprint("spoof ", i), "N0AD-AAAA-BBBB-CCCC" }
	b.Run("per-row", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range 256 {
				s.Classify(row(i))
			}
		}
	})
	b.Run("per-list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			classify, _ := s.Classifier()
			for i := range 256 {
				classify(row(i))
			}
		}
	})
}

// Unpin removes a pin by its fingerprint, and one already gone is no
// error; KnownName finds a name among the recent and the trusted, and
// is "" for a stranger or a nil store.
func TestUnpinAndKnownName(t *testing.T) {
	s, err := OpenTrust(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pinned := Device{Name: "desk", Key: bytes.Repeat([]byte{1}, 32), PairedAt: time.Now()}
	recent := Device{Name: "phone", Key: bytes.Repeat([]byte{2}, 32), PairedAt: time.Now()}
	if err := s.Add(pinned); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRecent(recent); err != nil {
		t.Fatal(err)
	}
	if got := s.KnownName(pinned.Fingerprint()); got != "desk" {
		t.Errorf("KnownName(desk) = %q", got)
	}
	if got := s.KnownName(recent.Fingerprint()); got != "phone" {
		t.Errorf("KnownName(phone) = %q", got)
	}
	stranger := Device{Key: bytes.Repeat([]byte{3}, 32)}
	if got := s.KnownName(stranger.Fingerprint()); got != "" {
		t.Errorf("KnownName(stranger) = %q", got)
	}
	if got := (*Trust)(nil).KnownName(pinned.Fingerprint()); got != "" {
		t.Errorf("nil store: %q", got)
	}
	for i := 0; i < 2; i++ {
		if err := s.Unpin(pinned); err != nil {
			t.Fatalf("Unpin #%d: %v", i+1, err)
		}
	}
	if _, ok, _ := s.Trusted(pinned.Key); ok {
		t.Error("still trusted after Unpin")
	}
}
