//go:build !js

package app

import (
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
)

// Trust is the device's trust store, for a front end's trust commands
// and views; nil when it cannot be used (New warned why).
func (n *Node) Trust() *stores.Trust { return n.trust }

// TrustOf relates a discovered receiver to the trust store (see
// stores.Trust's Classify). With trusted devices off, TrustUnknown.
func (n *Node) TrustOf(p nearby.Peer) (stores.TrustStatus, stores.Device, error) {
	if n.trust == nil {
		return stores.TrustUnknown, stores.Device{}, nil
	}
	return n.trust.Classify(p.Name, p.Fingerprint)
}
