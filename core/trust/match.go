package trust

import (
	"fmt"
	"strings"

	"github.com/ferry-project/ferry/core/secure"
)

// Status is how a device that discovery found relates to the pins.
type Status int

const (
	// Unknown: neither its fingerprint nor its name is pinned.
	Unknown Status = iota
	// Trusted: its fingerprint is a pinned key's.
	Trusted
	// Mismatch: its name is a pinned device's, its fingerprint is not
	// that device's key's: an impostor, or a device with a new key.
	Mismatch
)

func (st Status) String() string {
	switch st {
	case Trusted:
		return "trusted"
	case Mismatch:
		return "key changed"
	}
	return "unknown"
}

// Classify says how a discovered device (advertised name and fingerprint
// from mDNS) relates to the pins: Trusted when the fingerprint matches a
// pinned key, with that device; Mismatch when the name is a pinned
// device's name (case-insensitive) but the fingerprint is not its key's,
// with the pinned device; else Unknown. A missing fingerprint is never
// Trusted.
func (s *Store) Classify(name, fingerprint string) (Status, Device, error) {
	c, err := s.read()
	if err != nil {
		return Unknown, Device{}, err
	}
	st, d := ClassifyIn(c.devices, name, fingerprint)
	return st, d, nil
}

// ClassifyIn is Classify against devs, the pins as Devices read them:
// for a caller that classifies a whole list against one reading of the
// file.
func ClassifyIn(devs []Device, name, fingerprint string) (Status, Device) {
	if fp := secure.CanonicalFingerprint(fingerprint); fp != "" {
		for _, d := range devs {
			if d.Fingerprint() == fp {
				return Trusted, d
			}
		}
	}
	name = strings.TrimSpace(name)
	for _, d := range devs {
		if name != "" && strings.EqualFold(d.Name, name) {
			return Mismatch, d
		}
	}
	return Unknown, Device{}
}

// Lookup finds the one device in devs named by nameOrFingerprint (see
// secure.DeviceMatches). Every device that matches either way counts: none is ErrNotFound, several ErrAmbiguous,
// whose message lists them. Front ends use it on Recent's list; Remove
// uses it on the trusted devices.
func Lookup(devs []Device, nameOrFingerprint string) (Device, error) {
	q := strings.TrimSpace(nameOrFingerprint)
	if q == "" {
		return Device{}, fmt.Errorf("%w: no name or fingerprint given", ErrNotFound)
	}
	var found []Device
	for _, d := range devs {
		if secure.DeviceMatches(d.Name, d.Fingerprint(), q) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return Device{}, fmt.Errorf("%w: %q", ErrNotFound, q)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, d := range found {
		names[i] = fmt.Sprintf("%s (%s)", d.Name, d.Fingerprint())
	}
	return Device{}, fmt.Errorf("%w %q: %s", ErrAmbiguous, q, strings.Join(names, ", "))
}
