package app

// This file holds the one way a Node sends: a run of the engine's
// SendMany, one Transfer per receiver. Send is a send to one receiver.

import (
	"context"
	"net"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// Target is one receiver of SendMany: where it is, and its code or pin.
type Target struct {
	Addrs []string
	Code  string
	Pin   *stores.Device
	// PeerName and PeerFingerprint name it as it was found, for the
	// history when it never answers.
	PeerName, PeerFingerprint string
	Dialer                    func(ctx context.Context, addr string) (net.Conn, error)
	// Err, when set, is why this receiver cannot be sent to (it was not
	// found, or there is no way to authenticate it): its transfer never
	// dials, ends with Err beside the others, and is recorded as a failed
	// send to the receiver as it was named (Addrs, PeerName).
	Err error
}

// ManyConfig says what to send to several receivers at once.
type ManyConfig struct {
	Items []event.Item
	To    []Target
	// Paths and Text are the history's, as in SendConfig.
	Paths []string
	Text  bool
	Diag  bool
	// OnEvent is told every receiver's events, each with its Transfer
	// (Transfer.Index says which receiver).
	OnEvent Handler
	// OnEnded, when set, is told as soon as a receiver's session has
	// ended, on the goroutine that tells OnEvent and after that
	// receiver's last event before its Done or Error, which come only
	// when the last receiver has ended: a front end can show that this
	// one is over while the others go on. err is nil when every entry was
	// confirmed. Not told for a Target with Err.
	OnEnded func(t *Transfer, sum event.Summary, err error)
}

// Index is the place of a SendMany's transfer in ManyConfig.To, from 0
// (0 for any other transfer).
func (t *Transfer) Index() int { return t.index }

// Many is a send to several receivers: one Transfer each, in the order
// of ManyConfig.To.
type Many struct {
	Transfers []*Transfer
	cancel    context.CancelCauseFunc
	done      chan struct{}
	stats     ManyStats
}

// Cancel cancels every receiver's transfer (core/send's SendMany
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
func (m *Many) Wait() ([]Result, ManyStats) {
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
// keep pace (core/send's SendMany). A receiver that declines, fails
// or is slow never stops the others. Each transfer ends, with its Done or
// Error event, when the last of them has ended. ctx cancels them all.
func (n *Node) SendMany(ctx context.Context, cfg ManyConfig) *Many {
	to := make([]sendTarget, len(cfg.To))
	for i, t := range cfg.To {
		to[i].Target = t
	}
	return n.send(ctx, cfg, to)
}

// sendTarget is one receiver of a send: a Target, or the browser page
// that Send's SendConfig.Page names.
type sendTarget struct {
	Target
	page *Page
}

// send runs cfg.Items to every receiver in to (cfg.To is not read): one
// Transfer each, their events through one emitter, each recorded and
// ended once the engine's send has ended for all of them. With one
// receiver, its Transfer's Cancel cancels the send (the engine cancels
// its receivers only all together).
func (n *Node) send(ctx context.Context, cfg ManyConfig, to []sendTarget) *Many {
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	m := &Many{done: make(chan struct{}), cancel: cancel}
	em := newEmitter(cfg.OnEvent) // one event at a time across the receivers, as the engine's
	mc := send.ManyConfig{Items: cfg.Items}
	var (
		live  []*Transfer                    // the transfer of each of mc.To
		pages = make([]func(error), len(to)) // what ends each page once the send has ended with its error
	)
	for i, target := range to {
		t := n.newTransfer(ctx, event.Sender, em)
		t.index = i
		m.Transfers = append(m.Transfers, t)
		if target.Err != nil {
			continue
		}
		sc := send.SendConfig{Addrs: target.Addrs, Code: target.Code, Identity: n.id, Name: n.Name(),
			Diag: cfg.Diag, Timeout: n.cfg.Timeout, Dialer: timedDialer(target.Dialer)}
		if target.Pin != nil {
			sc.PeerKey = target.Pin.Key
		}
		pages[i] = target.page.sendTo(ctx, &sc)
		mc.To = append(mc.To, sc)
		live = append(live, t)
	}
	stopOne := func() bool { return false }
	if len(to) == 1 {
		one := m.Transfers[0].ctx
		stopOne = context.AfterFunc(one, func() { cancel(context.Cause(one)) })
	}
	mc.OnEvent = func(k int, ev event.Event) {
		t := live[k]
		switch e := ev.(type) {
		case event.Done:
			tellEnded(em, cfg.OnEnded, t, e.Summary, nil)
		case event.Error:
			tellEnded(em, cfg.OnEnded, t, event.Summary{}, e.Err)
		default:
			t.onSent(ev)
		}
	}
	start := n.now()
	go func() {
		results := make([]send.ManyResult, len(to))
		if len(mc.To) > 0 {
			got, stats := sendEngine(ctx, mc)
			for k, r := range got {
				results[live[k].index] = r
			}
			m.stats = ManyStats{DiskRead: stats.DiskRead}
		}
		ended := n.now()
		stopOne()
		for i, end := range pages {
			if end != nil {
				end(results[i].Err)
			}
		}
		for i, r := range results {
			t, target := m.Transfers[i], to[i]
			if target.Err != nil {
				r.Err = target.Err
			}
			res := t.sentResult(outer, r.Summary, r.Err, target.Pin)
			res.ReadAgain = r.ReadAgain
			sc := SendConfig{Addrs: target.Addrs, PeerName: target.PeerName, PeerFingerprint: target.PeerFingerprint,
				Paths: cfg.Paths, Text: cfg.Text}
			n.recordSent(start, sc, res, t.acceptedOffer(), ended)
			t.finish(res, cfg.Diag)
		}
		cancel(errTransferOver)
		close(m.done)
	}()
	return m
}

// tellEnded tells on that t's session has ended, once the events before it
// are out.
func tellEnded(em *emitter, on func(*Transfer, event.Summary, error), t *Transfer, sum event.Summary, err error) {
	if on == nil {
		return
	}
	em.flush()
	on(t, sum, err)
}
