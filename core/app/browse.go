package app

import (
	"context"

	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/trust"
)

// Browse looks for receivers on the network until ctx ends (core/
// discovery's Browse, on Config.Ifaces, skips told to Config.OnSkip):
// onChange gets the whole current list whenever it changes.
func (n *Node) Browse(ctx context.Context, onChange func([]discovery.Peer)) error {
	return discovery.Browse(ctx, discovery.BrowseConfig{Ifaces: n.cfg.Ifaces, OnSkip: n.cfg.OnSkip, OnChange: onChange})
}

// TrustOf relates a discovered receiver to the trust store: trusted (send
// with its pin, no code), a trusted name advertised with another key
// (never send to it without a code), or neither. With trusted devices
// off, neither.
func (n *Node) TrustOf(p discovery.Peer) (trust.Status, trust.Device, error) {
	if n.trust == nil {
		return trust.Unknown, trust.Device{}, nil
	}
	return n.trust.Classify(p.Name, p.Fingerprint)
}
