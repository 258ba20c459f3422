package app

import (
	"context"
	"net"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
)

// Target is one receiver of SendMany: where it is, and its code or pin.
type Target struct {
	Addrs []string
	Code  string
	Pin   *trust.Device
	// PeerName and PeerFingerprint name it as it was found, for the
	// history when it never answers.
	PeerName, PeerFingerprint string
	Dialer                    func(ctx context.Context, addr string) (net.Conn, error)
}

// ManyConfig says what to send to several receivers at once.
type ManyConfig struct {
	Items []transfer.Item
	To    []Target
	// Paths and Text are the history's, as in SendConfig.
	Paths []string
	Text  bool
	Diag  bool
	// OnEvent is told every receiver's events, each with its Transfer.
	OnEvent Handler
}

// Many is a send to several receivers: one Transfer each, in the order
// of ManyConfig.To.
type Many struct {
	Transfers []*Transfer
	cancel    context.CancelCauseFunc
	done      chan struct{}
	stats     transfer.ManyStats
}

// Cancel cancels every receiver's transfer (core/transfer's SendMany
// cancels all of them at once; a Transfer's own Cancel does not reach
// the engine here).
func (m *Many) Cancel(cause error) {
	if cause == nil {
		cause = transfer.ErrCancelled
	}
	m.cancel(cause)
}

// Wait waits until every receiver's transfer has ended and returns their
// results, in the order of ManyConfig.To, and how often the files were
// read.
func (m *Many) Wait() ([]Result, transfer.ManyStats) {
	<-m.done
	res := make([]Result, len(m.Transfers))
	for i, t := range m.Transfers {
		res[i] = t.Wait()
	}
	return res, m.stats
}

// SendMany sends cfg.Items to every receiver in cfg.To at once, each in
// a transfer of its own (its own handshake, accept, events, history
// record and result); each file is read once for all of them where they
// keep pace (core/transfer's SendMany). A receiver that declines, fails
// or is slow never stops the others. Each transfer ends, with its Done or
// Error event, when the last of them has ended. ctx cancels them all.
func (n *Node) SendMany(ctx context.Context, cfg ManyConfig) *Many {
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	m := &Many{done: make(chan struct{}), cancel: cancel}
	em := newEmitter(cfg.OnEvent) // one event at a time across the receivers, as the engine's
	mc := transfer.ManyConfig{Items: cfg.Items}
	for _, to := range cfg.To {
		t := n.newTransfer(ctx, event.Sender, em)
		m.Transfers = append(m.Transfers, t)
		sc := transfer.SendConfig{Addrs: to.Addrs, Code: to.Code, Identity: n.id, Name: n.cfg.Name,
			Diag: cfg.Diag, Timeout: n.cfg.Timeout, Dialer: to.Dialer}
		if to.Pin != nil {
			sc.PeerKey = to.Pin.Key
		}
		mc.To = append(mc.To, sc)
	}
	mc.OnEvent = func(i int, ev transfer.Event) { m.Transfers[i].onSent(ev) }
	start := n.now()
	go func() {
		results, stats := transfer.SendMany(ctx, mc)
		ended := n.now()
		m.stats = stats
		for i, r := range results {
			t, to := m.Transfers[i], cfg.To[i]
			res := t.sentResult(outer, r.Summary, r.Err, to.Pin)
			res.ReadAgain = r.ReadAgain
			sc := SendConfig{Addrs: to.Addrs, PeerName: to.PeerName, PeerFingerprint: to.PeerFingerprint}
			n.record(sendRecord(sourceRecord(start, cfg.Paths, cfg.Text), sc, res, t.acceptedOffer()), res, ended)
			t.finish(res, cfg.Diag)
		}
		cancel(errTransferOver)
		close(m.done)
	}()
	return m
}
