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
		got, ok := ParseFingerprint(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseFingerprint(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
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
