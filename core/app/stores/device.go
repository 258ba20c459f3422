package stores

import (
	"encoding/base64"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
)

// Device is a device known by its key: a trusted device, or one a code
// authenticated lately.
type Device struct {
	Name     string
	Key      []byte    // its 32-byte static public key
	PairedAt time.Time // when it was trusted (a recent device: when a code authenticated it)
}

// Fingerprint is the short form of the device's key, as discovery
// advertises it and people type it.
func (d Device) Fingerprint() string { return secure.Fingerprint(d.Key) }

// Event is d in the schema's form, as the Trusted, Recent and Untrusted
// events carry it.
func (d Device) Event() event.Device {
	return event.Device{Name: d.Name, Fingerprint: d.Fingerprint(), Key: base64.StdEncoding.EncodeToString(d.Key),
		PairedAt: d.PairedAt.UTC().Format(time.RFC3339)}
}
