package secure

import (
	"strings"
	"testing"
)

func TestParseFingerprint(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"K7QX-M2PA-9RTE-WD4C", "K7QXM2PA9RTEWD4C", true},
		{"k7qxm2pa9rtewd4c", "K7QXM2PA9RTEWD4C", true},
		{" k7qx m2pa\t9rte-wd4c\n", "K7QXM2PA9RTEWD4C", true},
		{"k7", "K7", true}, // a prefix parses; its length is the caller's rule
		{"", "", false},
		{"----", "", false},
		{"K7QI", "", false},  // I is not in the alphabet
		{"K7Q0", "", false},  // nor 0
		{"K7QX_", "", false}, // nor any other separator
		{"К7QX", "", false},  // a Cyrillic K
	} {
		got, ok := parseFingerprint(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseFingerprint(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCanonicalFingerprint(t *testing.T) {
	id, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	fp := id.Fingerprint()
	for _, in := range []string{fp, " " + fp + " ", strings.ToLower(fp), strings.ReplaceAll(fp, "-", "")} {
		if got := CanonicalFingerprint(in); got != fp {
			t.Errorf("CanonicalFingerprint(%q) = %q, want %q", in, got, fp)
		}
	}
	for _, in := range []string{"", fp[:18], fp + "A", "K7QX-M2PA-9RTE-WD4I"} {
		if got := CanonicalFingerprint(in); got != "" {
			t.Errorf("CanonicalFingerprint(%q) = %q, want empty", in, got)
		}
	}
}

// The cases both old matchers were tested with (core/discovery's
// Peer.Matches and core/trust's Lookup), now asked of the one rule.
// Every case of either table gives the answer its old matcher gave.
func TestDeviceMatches(t *testing.T) {
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
		if got := DeviceMatches(name, fp, tt.q); got != tt.want {
			t.Errorf("DeviceMatches(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if DeviceMatches("x", "", "AAAA") {
		t.Error("a device without fingerprint matched a fingerprint prefix")
	}
	if DeviceMatches("", "", "") || DeviceMatches("", fp, "  ") {
		t.Error("an empty query matched")
	}
}
