//go:build !js

package stores

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ferry-project/ferry/core/trust"
)

// Errors of the trust store's look-ups, for a front end to branch on.
var (
	// ErrNoSuchDevice: no device matches the name or fingerprint.
	ErrNoSuchDevice = trust.ErrNotFound
	// ErrAmbiguous: more than one device matches; the message lists
	// them, so a person can give more of the fingerprint.
	ErrAmbiguous = trust.ErrAmbiguous
	// ErrTrustCorrupt: the trust file cannot be read as written; trusted
	// devices are off until a person fixes it.
	ErrTrustCorrupt = trust.ErrCorrupt
	// ErrTrustVersion: the trust file was written by a newer Ferry.
	ErrTrustVersion = trust.ErrUnsupportedVersion
)

func devicesOf(ds []trust.Device, err error) ([]Device, error) {
	if ds == nil {
		return nil, err
	}
	out := make([]Device, len(ds))
	for i, d := range ds {
		out[i] = Device(d)
	}
	return out, err
}

// TrustStatus is how a discovered receiver relates to the trusted
// devices.
type TrustStatus int

const (
	// TrustUnknown: neither its fingerprint nor its name is trusted.
	TrustUnknown TrustStatus = iota
	// TrustTrusted: its fingerprint is a trusted device's: send with its
	// pin, no code.
	TrustTrusted
	// TrustKeyChanged: it advertises a trusted device's name with
	// another key, an impostor or a device with a new key: never send to
	// it without a code.
	TrustKeyChanged
)

// Trust is the device's trusted devices (and those a code
// authenticated lately). Every call reads the file, so several stores,
// goroutines and processes may share it.
type Trust struct {
	s   *trust.Store
	now func() time.Time
}

// OpenTrust opens the trust store in configDir ("" is the user's config
// folder) without a Node, for a front end's trust commands: it neither
// reads nor creates the device's key.
func OpenTrust(configDir string) (*Trust, error) {
	path := filepath.Join(configDir, "trusted.json")
	if configDir == "" {
		p, err := trust.DefaultPath()
		if err != nil {
			return nil, fmt.Errorf("finding the trust file: %w", err)
		}
		path = p
	}
	return &Trust{s: trust.Open(path), now: time.Now}, nil
}

// WithClock is the same store, dating what TrustRecent trusts with now
// (a Node's Config.Now) rather than time.Now.
func (t *Trust) WithClock(now func() time.Time) *Trust {
	c := *t
	c.now = now
	return &c
}

// Path is the trust file's path.
func (t *Trust) Path() string { return t.s.Path() }

// Devices are the trusted devices.
func (t *Trust) Devices() ([]Device, error) { return devicesOf(t.s.Devices()) }

// Recent are the devices a code authenticated lately, newest first.
func (t *Trust) Recent() ([]Device, error) { return devicesOf(t.s.Recent()) }

// Trusted returns the trusted device with this key, if there is one.
func (t *Trust) Trusted(key []byte) (Device, bool, error) {
	d, ok, err := t.s.Trusted(key)
	return Device(d), ok, err
}

// Find is the one trusted device that nameOrFingerprint names:
// ErrNoSuchDevice or ErrAmbiguous (which lists them) otherwise.
func (t *Trust) Find(nameOrFingerprint string) (Device, error) {
	devs, err := t.s.Devices()
	if err != nil {
		return Device{}, err
	}
	d, err := trust.Lookup(devs, nameOrFingerprint)
	return Device(d), err
}

// Remove stops trusting the one trusted device that nameOrFingerprint
// names, and returns it: ErrNoSuchDevice or ErrAmbiguous otherwise.
func (t *Trust) Remove(nameOrFingerprint string) (Device, error) {
	d, err := t.s.Remove(nameOrFingerprint)
	return Device(d), err
}

// Unpin removes d's pin by its full fingerprint, since a name may be
// shared by two devices. A pin already gone (removed elsewhere, or by
// another front end) is what was asked for: no error.
func (t *Trust) Unpin(d Device) error {
	_, err := t.Remove(d.Fingerprint())
	if errors.Is(err, ErrNoSuchDevice) {
		return nil
	}
	return err
}

// KnownName is the name a device with fingerprint fp gave, from the
// recent peers a code authenticated or the trusted devices; "" when
// this device never met it, the store cannot be read, or t is nil.
func (t *Trust) KnownName(fp string) string {
	if t == nil || fp == "" {
		return ""
	}
	recent, _ := t.Recent()
	devs, _ := t.Devices()
	for _, d := range append(recent, devs...) {
		if d.Fingerprint() == fp {
			return d.Name
		}
	}
	return ""
}

// Add trusts d's key from now on, as it is (its PairedAt included).
func (t *Trust) Add(d Device) error { return t.s.Add(trust.Device(d)) }

// Classify relates a discovered receiver's advertised name and
// fingerprint to the trusted devices: trusted (with that device), a
// trusted name with another key (with the trusted device), or neither.
func (t *Trust) Classify(name, fingerprint string) (TrustStatus, Device, error) {
	st, d, err := t.s.Classify(name, fingerprint)
	return statusOf(st), Device(d), err
}

// Classifier reads the trusted devices once and returns Classify
// against that reading, for a front end that classifies a whole list at
// a time: Classify reads the file at every call, and a list of 256
// receivers, which an mDNS flood brings ten times a second, took 19 ms
// so, against 0.25 ms with one reading (BenchmarkClassifyList).
func (t *Trust) Classifier() (func(name, fingerprint string) (TrustStatus, Device), error) {
	devs, err := t.s.Devices()
	if err != nil {
		return nil, err
	}
	return func(name, fingerprint string) (TrustStatus, Device) {
		st, d := trust.ClassifyIn(devs, name, fingerprint)
		return statusOf(st), Device(d)
	}, nil
}

func statusOf(st trust.Status) TrustStatus {
	switch st {
	case trust.Trusted:
		return TrustTrusted
	case trust.Mismatch:
		return TrustKeyChanged
	}
	return TrustUnknown
}

// TrustRecent trusts the one device a code authenticated lately that
// nameOrFingerprint names (only those are known by their key). already
// says it was trusted before (then nothing changes), and d is that
// device; a name that matches no recent device but a trusted one is
// that one, already trusted. Errors: ErrNoSuchDevice when no recent
// device matches, ErrAmbiguous when several do.
func (t *Trust) TrustRecent(nameOrFingerprint string) (d Device, already bool, err error) {
	recent, err := t.s.Recent()
	if err != nil {
		return Device{}, false, err
	}
	r, err := trust.Lookup(recent, nameOrFingerprint)
	if errors.Is(err, trust.ErrNotFound) {
		if devs, derr := t.s.Devices(); derr == nil {
			if td, terr := trust.Lookup(devs, nameOrFingerprint); terr == nil {
				return Device(td), true, nil
			}
		}
		return Device{}, false, err
	}
	if err != nil {
		return Device{}, false, err
	}
	if td, ok, err := t.s.Trusted(r.Key); err != nil {
		return Device{}, false, err
	} else if ok {
		return Device(td), true, nil
	}
	r.PairedAt = t.now()
	if err := t.s.Add(r); err != nil {
		return Device{}, false, err
	}
	return Device(r), false, nil
}

// String is the status as lists show it: "trusted", "key changed" or
// "unknown".
func (st TrustStatus) String() string {
	switch st {
	case TrustTrusted:
		return "trusted"
	case TrustKeyChanged:
		return "key changed"
	}
	return "unknown"
}

// Mark is how a list marks a discovered receiver that advertises the
// fingerprint advertised and that Classify (or core/app's Node.TrustOf) put in st with
// the device d: "" when unknown, "trusted", and for TrustKeyChanged the
// whole KeyChangedWarning, so that no list shows the trusted name alone.
// Label and KeyChangedKeys are its two halves, for a front end that
// shows them apart (a badge and a line under it).
func (st TrustStatus) Mark(d Device, advertised string) string {
	if st == TrustKeyChanged {
		return KeyChangedWarning(d, advertised)
	}
	return st.Label()
}

// Label is the status in a few words: "trusted", "NOT the trusted
// device" for a trusted name with another key, "" when unknown.
func (st TrustStatus) Label() string {
	switch st {
	case TrustTrusted:
		return "trusted"
	case TrustKeyChanged:
		return "NOT the trusted device"
	}
	return ""
}

// KeyChangedWarning says that a receiver advertising the trusted device
// d's name with the fingerprint advertised is not d, and shows both
// fingerprints: what every front end says before anything that would
// lead a person to send it a code or pair with it. A clause, as
// errkind's words are: "NOT the trusted device: its key is N0AD-…, the
// trusted one's K7QX-…".
func KeyChangedWarning(d Device, advertised string) string {
	return TrustKeyChanged.Label() + ": " + KeyChangedKeys(d, advertised)
}

// KeyChangedKeys names both keys of such a receiver: "its key is
// N0AD-…, the trusted one's K7QX-…".
func KeyChangedKeys(d Device, advertised string) string {
	if advertised == "" {
		advertised = "not given"
	}
	return fmt.Sprintf("its key is %s, the trusted one's %s", advertised, d.Fingerprint())
}

// KeyChangedAdvice is what to do about such a receiver: send only with
// the code it shows, and pair again only when it is the trusted device
// with a new key (errkind's KeyChanged says the same after a refusal).
const KeyChangedAdvice = "another device may be using its name: send only with the code it shows, and pair again only if you know it is yours with a new key"

// NoteRecent remembers d as a device a code authenticated just now (its
// PairedAt: when), which TrustRecent may then trust by name.
func (t *Trust) NoteRecent(d Device) error { return t.s.NoteRecent(trust.Device(d)) }
