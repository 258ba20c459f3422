package app

import (
	"context"
	"net"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// SendConfig says what to send where.
type SendConfig struct {
	Items []event.Item
	// Addrs are the receiver's addresses, host:port, best first (one
	// typed, or every address discovery found for it).
	Addrs []string
	// Code is the code the receiver shows; empty with Pin.
	Code string
	// Pin, when set, is the receiver's trusted device: paired mode, no
	// code; the receiver must hold its key.
	Pin *stores.Device
	// PeerName and PeerFingerprint name the receiver as it was found
	// (discovery), for the history when it never answers.
	PeerName, PeerFingerprint string
	// Paths are the source paths as the person gave them, and Text says
	// a text is sent too: the history's names, folder and paths.
	Paths []string
	Text  bool
	Diag  bool
	// Dialer, when set, opens the connection (see transfer.SendConfig).
	Dialer func(ctx context.Context, addr string) (net.Conn, error)
	// Page, when set, is where the receiver comes from instead of Addrs,
	// with the page's code in place of Code: a browser page that
	// receives (ServePage). Every page connection that could test the
	// code without proving it counts, and after
	// MaxListenerGuesses the send fails; each is an Unproven event, so
	// that a person waiting for a phone learns that a page came without
	// the code. The send closes the page when it ends or ctx does.
	Page *Page
	// OnEvent is told the transfer's events.
	OnEvent Handler
}

// Send starts sending, on a goroutine of its own, and returns the
// transfer at once. Its events go to cfg.OnEvent and end with Done or
// Error; the history records it whatever happens (a failed dial too).
// ctx cancels it, and so does its Cancel. It is SendMany with one
// receiver.
func (n *Node) Send(ctx context.Context, cfg SendConfig) *Transfer {
	to := sendTarget{Target: Target{Addrs: cfg.Addrs, Code: cfg.Code, Pin: cfg.Pin, PeerName: cfg.PeerName,
		PeerFingerprint: cfg.PeerFingerprint, Dialer: cfg.Dialer}, page: cfg.Page}
	mc := ManyConfig{Items: cfg.Items, Paths: cfg.Paths, Text: cfg.Text, Diag: cfg.Diag, OnEvent: cfg.OnEvent}
	return n.send(ctx, mc, []sendTarget{to}).Transfers[0]
}

// sentResult is a sent transfer's result: the engine's outcome and who
// the handshake proved the receiver to be, named by its pin when paired.
func (t *Transfer) sentResult(ctx context.Context, sum event.Summary, err error, pin *stores.Device) Result {
	res := Result{Summary: sum, Err: err, Cancelled: context.Cause(ctx) != nil}
	c := t.connected()
	if c != nil {
		res.Peer.Name, res.Peer.Key, res.Addr, res.Paired = c.PeerName, c.PeerKey, c.Addr, c.Paired
	}
	if pin != nil && (c == nil || c.Paired) {
		res.PinnedName = pin.Name
	}
	return res
}

func (t *Transfer) acceptedOffer() *event.Offer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.offer
}

// onSent notes what the record needs and emits the event.
func (t *Transfer) onSent(ev event.Event) {
	switch e := ev.(type) {
	case event.Connected:
		t.mu.Lock()
		t.conn = &e
		t.mu.Unlock()
	case event.Accepted:
		t.mu.Lock()
		t.offer = &e.Offer
		t.mu.Unlock()
	case event.Done, event.Error:
		return // the result is reported once, by the Transfer's end
	}
	t.emit(ev)
}
