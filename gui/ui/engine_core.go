package ui

import (
	"context"
	"errors"

	"github.com/ferry-project/ferry/core/transfer"
)

// CoreEngine runs transfers with core/transfer.
// TODO(gui): call transfer.Send and transfer.NewReceiver once they land.
type CoreEngine struct{}

var errNoEngine = errors.New("the transfer engine is not built in yet")

func (CoreEngine) Send(ctx context.Context, cfg transfer.SendConfig) (transfer.Summary, error) {
	return transfer.Summary{}, errNoEngine
}

func (CoreEngine) NewReceiver(cfg transfer.ReceiverConfig) (Receiver, error) {
	return nil, errNoEngine
}
