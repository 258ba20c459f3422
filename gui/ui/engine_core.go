package ui

import (
	"context"

	"github.com/ferry-project/ferry/core/transfer"
)

// CoreEngine runs transfers with core/transfer.
type CoreEngine struct{}

func (CoreEngine) Send(ctx context.Context, cfg transfer.SendConfig) (transfer.Summary, error) {
	return transfer.Send(ctx, cfg)
}

func (CoreEngine) NewReceiver(cfg transfer.ReceiverConfig) (Receiver, error) {
	r, err := transfer.NewReceiver(cfg)
	if err != nil {
		return nil, err
	}
	return r, nil
}
