package app

import (
	"context"
	"net"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
)

// ReceiveFromConfig says how a Node receives one transfer over a
// connection it opens itself, into a Sink: the browser page's receive,
// whose WebSocket reaches the device that sends.
type ReceiveFromConfig struct {
	// Dial opens the connection to the sender. Its error ends the
	// transfer as it is (the front end words what it could not reach).
	Dial func(ctx context.Context) (net.Conn, error)
	// Code is the code the sender must prove.
	Code string
	// Sink takes every entry received: nothing is written to disk.
	Sink event.Sink
	Diag bool // diagnostics: Diag events, and splits in Done
	// OnEvent is told the transfer's events.
	OnEvent Handler
}

// ReceiveFrom receives one transfer over the connection cfg.Dial opens,
// on a goroutine of its own, and returns the transfer at once. This end
// checks the code, as a Receiver does, and takes every offer unasked (a
// person asked for it by opening the link); a sender without a code is
// refused, and the transfer's Error says so. Its events go to
// cfg.OnEvent and end with Done or Error. Each ReceiveFrom has its own
// count of wrong codes, and nothing is recorded. ctx cancels it.
func (n *Node) ReceiveFrom(ctx context.Context, cfg ReceiveFromConfig) *Transfer {
	t := n.newTransfer(ctx, event.Receiver, newEmitter(cfg.OnEvent))
	go func() {
		sum, err := n.receiveFrom(t, cfg)
		res := t.sentResult(ctx, sum, err, nil) // the peer as the handshake proved it, as a send's
		if c := t.connected(); c != nil {
			res.WrongCodes = c.WrongCodes
		}
		t.finish(res, cfg.Diag)
	}()
	return t
}

func (n *Node) receiveFrom(t *Transfer, cfg ReceiveFromConfig) (event.Summary, error) {
	r, err := receive.NewReceiver(receive.ReceiverConfig{
		NoListen: true, Sink: cfg.Sink, Code: cfg.Code, Identity: n.id, Name: n.Name(),
		Policy: receive.AcceptAll, Diag: cfg.Diag, Timeout: n.cfg.Timeout, OnEvent: t.onReceivedFrom,
	})
	if err != nil {
		return event.Summary{}, err
	}
	defer r.Close()
	c, err := cfg.Dial(t.ctx)
	if err != nil {
		return event.Summary{}, err
	}
	return r.ServeConn(t.ctx, timed(c))
}

// onReceivedFrom notes what the result needs and emits the event. A
// refused sender ends the transfer, whose Error says why: its Refused
// is not told as well.
func (t *Transfer) onReceivedFrom(ev event.Event) {
	if _, ok := ev.(event.Refused); ok {
		return
	}
	t.onSent(ev)
}
