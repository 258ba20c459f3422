package trust

import (
	"errors"
	"testing"
)

// The cases both old matchers were tested with (core/discovery's
// Peer.Matches and this package's Lookup), now asked of the one rule.
// Every case of either table gives the answer its old matcher gave.
func TestMatches(t *testing.T) {
	const name, fp = "Zoë's Laptop", "K7QX-M2PA-9RTE-WD4C"
	for _, tt := range []struct {
		q    string
		want bool
	}{
		// core/discovery's TestMatches, unchanged.
		{"Zoë's Laptop", true},
		{"zoë's laptop", true},
		{"  ZOË'S LAPTOP ", true},
		{"Zoë's", false},
		{"", false},
		{"K7Q", false}, // under 4 characters
		{"K7QX", true},
		{"k7qx", true},
		{"K7QX-", true},
		{"K7QX-M", true},
		{"k7qxm2pa", true},
		{"K7QX-M2PA-9RTE-WD4C", true},
		{"K7QXM2PA9RTEWD4C", true},
		{"K7QX-M2PA-9RTE-WD4CX", false}, // longer than the fingerprint
		{"M2PA", false},                 // not a prefix
		{"K7QY", false},
		{"----", false},
		// What Lookup was tested with (TestRemove): other names, an
		// empty query, a fingerprint under four characters, another
		// device's fingerprint, a lower-case prefix without dashes.
		{"phone", false},
		{"AB", false},
		{"AAAA-BBBB-CCCC-DDDD", false},
		{"k7qxm2", true},
		// White space around a fingerprint, and inside it (the TXT rule).
		{" k7qx-m2pa ", true},
		{"K7QX M2PA", true},
	} {
		if got := Matches(name, fp, tt.q); got != tt.want {
			t.Errorf("Matches(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if Matches("x", "", "AAAA") {
		t.Error("a device without fingerprint matched a fingerprint prefix")
	}
	if Matches("", "", "") || Matches("", fp, "  ") {
		t.Error("an empty query matched")
	}
}

// Lookup is Matches over a list: none, one or several.
func TestLookupUsesMatches(t *testing.T) {
	a := Device{Name: "laptop", Key: make([]byte, 32)}
	b := Device{Name: "Laptop", Key: append(make([]byte, 31), 1)}
	devs := []Device{a, b}
	if _, err := Lookup(devs, "LAPTOP"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("Lookup(LAPTOP) = %v, want ErrAmbiguous", err)
	}
	for _, d := range devs {
		got, err := Lookup(devs, d.Fingerprint()[:9])
		if err != nil || got.Name != d.Name || !Matches(d.Name, d.Fingerprint(), d.Fingerprint()[:9]) {
			t.Errorf("Lookup(%q) = %+v, %v; want %q", d.Fingerprint()[:9], got, err, d.Name)
		}
	}
	for _, q := range []string{"", "desk", "AB"} {
		if _, err := Lookup(devs, q); !errors.Is(err, ErrNotFound) {
			t.Errorf("Lookup(%q) = %v, want ErrNotFound", q, err)
		}
	}
}
