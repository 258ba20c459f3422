package trust

import (
	"errors"
	"testing"

	"github.com/ferry-project/ferry/core/secure"
)

// Lookup is secure.DeviceMatches over a list: none, one or several.
func TestLookupUsesMatches(t *testing.T) {
	a := Device{Name: "laptop", Key: make([]byte, 32)}
	b := Device{Name: "Laptop", Key: append(make([]byte, 31), 1)}
	devs := []Device{a, b}
	if _, err := Lookup(devs, "LAPTOP"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("Lookup(LAPTOP) = %v, want ErrAmbiguous", err)
	}
	for _, d := range devs {
		got, err := Lookup(devs, d.Fingerprint()[:9])
		if err != nil || got.Name != d.Name || !secure.DeviceMatches(d.Name, d.Fingerprint(), d.Fingerprint()[:9]) {
			t.Errorf("Lookup(%q) = %+v, %v; want %q", d.Fingerprint()[:9], got, err, d.Name)
		}
	}
	for _, q := range []string{"", "desk", "AB"} {
		if _, err := Lookup(devs, q); !errors.Is(err, ErrNotFound) {
			t.Errorf("Lookup(%q) = %v, want ErrNotFound", q, err)
		}
	}
}
