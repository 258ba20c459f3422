//go:build !js

package app

import (
	"context"

	"github.com/ferry-project/ferry/core/send"
)

// sendEngine runs the engine's send to every receiver of mc
// (nodisk_js.go has the page's).
func sendEngine(ctx context.Context, mc send.ManyConfig) ([]send.ManyResult, send.ManyStats) {
	return send.SendMany(ctx, mc)
}
