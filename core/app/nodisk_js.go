// The page's js/wasm build: a Node there keeps nothing on disk
// (NewInMemory) and serves no port, so the trust store, the history,
// the guess file, discovery and the page's server stay out of
// ferry.wasm. The files that hold them are built !js; what the shared
// files name of them is empty here.

package app

import (
	"context"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/send"
)

// disk: no trust store, history, receiver or guess budget.
type disk struct{}

// receiving: no Receiver, so no record of one.
type receiving struct{}

// Page is a page served for a send to a browser (ServePage), which a
// page itself never serves: always nil here.
type Page struct{}

func (p *Page) sendTo(context.Context, *send.SendConfig) (end func(error)) { return func(error) {} }

// recordSent: there is no history.
func (n *Node) recordSent(time.Time, SendConfig, Result, *event.Offer, time.Time) {}

// cancelSession: only a Receiver's transfers have sessions.
func (t *Transfer) cancelSession(error) {}

// Close marks the Node closed: there is no receiver to stop.
func (n *Node) Close() error {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	return nil
}

// sendEngine: the page sends to one receiver (Send), so it runs the
// engine's Send, one receiver after another if there were several:
// linking the engine's fan-out would only grow ferry.wasm.
func sendEngine(ctx context.Context, mc send.ManyConfig) ([]send.ManyResult, send.ManyStats) {
	res := make([]send.ManyResult, len(mc.To))
	for i, sc := range mc.To {
		sc.Items = mc.Items
		sc.OnEvent = func(ev event.Event) { mc.OnEvent(i, ev) }
		sum, err := send.Send(ctx, sc)
		res[i] = send.ManyResult{Summary: sum, Err: err}
	}
	return res, send.ManyStats{}
}
