package ui

import (
	"context"

	"github.com/ferry-project/ferry/core/app/stores"
)

// Device is a receiver the person can send to: one found on the network,
// or one added by address.
type Device struct {
	Name        string
	Fingerprint string   // empty for a device added by address
	Addrs       []string // host:port, best first
	Manual      bool     // added by address, not discovered
	// Incompatible: it advertises a protocol version this build doesn't
	// speak. It is listed, so the person learns why it won't work.
	Incompatible bool

	// How the device relates to the trust store, set by the UI (never by
	// a BrowseFunc) each time the list or the store changes. pin is the
	// pinned device when status is stores.TrustTrusted: its full key is what a
	// code-less send checks, the advertised fingerprint only selects it.
	status stores.TrustStatus
	pin    stores.Device
	// named is the trusted device whose name it advertises when status
	// is stores.TrustKeyChanged: the list shows both keys.
	named stores.Device
}

// key identifies a device across discovery updates: the fingerprint when
// it has one (its addresses may change), otherwise its address.
func (d Device) key() string {
	if d.Fingerprint != "" {
		return "fp:" + d.Fingerprint
	}
	if len(d.Addrs) > 0 {
		return "addr:" + d.Addrs[0]
	}
	return "name:" + d.Name
}

// BrowseFunc reports the devices on the network, the whole list each time
// it changes, until ctx ends. The ferry-gui command adapts core/discovery
// to it; nil means no discovery.
type BrowseFunc func(ctx context.Context, onChange func([]Device)) error
