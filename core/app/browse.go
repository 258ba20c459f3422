//go:build !js

package app

import (
	"context"

	"github.com/ferry-project/ferry/core/app/nearby"
)

// Browse looks for receivers on the network until ctx ends, on
// Config.Ifaces, skips told to Config.OnSkip: onChange gets the whole
// current list whenever it changes.
func (n *Node) Browse(ctx context.Context, onChange func([]nearby.Peer)) error {
	return nearby.Browse(ctx, nearby.BrowseConfig{Ifaces: n.cfg.Ifaces, OnSkip: n.cfg.OnSkip, OnChange: onChange})
}
