package send

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
)

// MaxListenerGuesses is how many connections Send on a Listener lets
// test its code without proving it before it stops (ErrCodesStopped).
// An honest page has the code from the link, so it proves it the first
// time; a connection that could test a guess and did not prove one is
// someone else's, or a page that lost its link at the one moment that
// counts (between message 3 and its first record).
const MaxListenerGuesses = 3

// sendAccepted is Send on cfg.Listener: it sends on the connections the
// listener accepts, one at a time, until one peer proves the code.
//
// Here this end is the handshake's initiator in front of a responder
// that anyone on the network may be (the page and its token are public
// on the LAN), so the responder's report of a wrong code cannot be the
// count: a guesser would test its one guess against message 3 offline
// and hang up without a word. Instead every connection that got message
// 3 (secure.Config.Exposing) and did not answer with a record that opens
// under the code (its hello: Connected) counts as a wrong guess, whatever
// it said or did not say; after MaxListenerGuesses of them Send stops.
// A connection that ended before message 3 tested nothing and is not
// counted. Each such connection is reported as Unproven.
//
// Swapping the handshake's roles (the page as initiator, this end as
// the responder that checks guesses) would count the same guesses, but
// changes who initiates a transfer on the wire and in the page; counting
// here keeps the protocol as it is.
func sendAccepted(ctx context.Context, cfg SendConfig, ev *transfer.Emitter) (event.Summary, error) {
	if len(cfg.PeerKey) > 0 || cfg.Code == "" {
		return event.Summary{}, errors.New("sending on a listener needs a code (and no pinned key)")
	}
	// Accept is ended by the context through the listener's deadline
	// (a net.TCPListener and core/web's Mux have one).
	if d, ok := cfg.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		stop := context.AfterFunc(ctx, func() { d.SetDeadline(time.Unix(1, 0)) })
		defer func() {
			if stop() {
				return
			}
			d.SetDeadline(time.Time{})
		}()
	}
	for wrong := 0; ; {
		nc, err := cfg.Listener.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return event.Summary{}, transfer.CancelError(ctx)
			}
			return event.Summary{}, fmt.Errorf("waiting for the receiver to connect: %w", err)
		}
		var exposed, proven atomic.Bool
		one := cfg
		one.Listener = nil
		one.Addrs = []string{nc.RemoteAddr().String()}
		one.Dialer = func(context.Context, string) (net.Conn, error) { return nc, nil }
		one.exposing = func() { exposed.Store(true) }
		inner := &transfer.Emitter{F: func(e event.Event) {
			if _, ok := e.(event.Connected); ok {
				proven.Store(true)
				transfer.MarkProven(nc)
			}
			ev.Emit(e)
		}}
		sum, err := send(ctx, one, inner)
		if err == nil || proven.Load() || ctx.Err() != nil {
			return sum, err
		}
		nc.Close()
		u := event.Unproven{Addr: one.Addrs[0], Err: err, Message: err.Error(), Guessed: exposed.Load(), Allowed: MaxListenerGuesses}
		if u.Guessed {
			wrong++
		}
		u.Wrong = wrong
		ev.Emit(u)
		if wrong >= MaxListenerGuesses {
			return event.Summary{}, fmt.Errorf("%w: %d connections could test the code and did not prove it", transfer.ErrCodesStopped, wrong)
		}
	}
}
