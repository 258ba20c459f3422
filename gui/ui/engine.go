package ui

import (
	"context"

	"github.com/ferry-project/ferry/core/transfer"
)

// Engine is the part of core/transfer the UI drives. CoreEngine is the real
// one; the demo mode of ferry-gui plays recorded events through its own.
type Engine interface {
	Send(ctx context.Context, cfg transfer.SendConfig) (transfer.Summary, error)
	NewReceiver(cfg transfer.ReceiverConfig) (Receiver, error)
}

// Receiver is what the UI needs of a *transfer.Receiver.
type Receiver interface {
	Code() string
	Port() int
	Serve(ctx context.Context) (transfer.Summary, error)
	Accept()
	Decline()
	// NewCode is the person asking for a new code (after CodesStopped):
	// the engine emits CodeChanged with it before it returns.
	NewCode() string
	Close() error
}
