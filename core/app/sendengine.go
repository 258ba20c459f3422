//go:build !js

package app

import (
	"context"

	"github.com/ferry-project/ferry/core/transfer"
)

// sendEngine runs the engine's send to every receiver of mc
// (nodisk_js.go has the page's).
func sendEngine(ctx context.Context, mc transfer.ManyConfig) ([]transfer.ManyResult, transfer.ManyStats) {
	return transfer.SendMany(ctx, mc)
}
