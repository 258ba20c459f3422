//go:build !js

package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
)

// ReceiveConfig says where and how a Node receives.
type ReceiveConfig struct {
	// Dir is the destination folder, which must exist; "" is DefaultDir.
	Dir string
	// Code fixes the code; "" picks a random 6-digit one.
	Code string
	// Listen is the address to listen on, host:port; "" is every
	// interface, any free port.
	Listen    string
	Overwrite bool // replace existing files instead of "name (1).ext"
	SaveText  bool // also save text snippets as files

	// Who answers an offer. With AcceptAll every offer is accepted
	// unasked (Accepted by "flag"); with AcceptTrusted a paired sender's
	// is (by "trusted"); with Unattended set nobody can be asked, and the
	// other offers are declined with it as the reason. Otherwise the
	// front end answers each Offer with Transfer.Accept or Decline.
	AcceptAll     bool
	AcceptTrusted bool
	Unattended    string

	// KeepTexts keeps the texts received for the clipboard (Result.Texts
	// and Result.Clipboard).
	KeepTexts bool
	// Page serves the browser page (Config.PageFiles) on the receiver's
	// port: browsers send through it under the same limits and budget.
	Page bool
	// Advertise announces the receiver on the network (core/discovery).
	// Its failure is a warning: senders can still use the address.
	Advertise bool
	// PairedOnly takes paired senders only (a daemon, where nobody reads
	// a code): a sender with a code is refused in the handshake before
	// any guess is checked (event.Refused, reason "codes_off"), and the
	// device's guess budget is neither spent nor opened. Without it, once
	// the budget is spent the wait for a sender ends with an error
	// wrapping ErrCodesStopped.
	PairedOnly bool
	// KeepWaiting keeps the wait for a sender going once the budget is
	// spent (event.CodesStopped), for a front end whose person can ask
	// for a new code while it waits (the mobile binding): a sender with
	// a code is told that codes are held, a paired sender still gets
	// through, and NewCode takes codes again. Without it the wait ends,
	// as above.
	KeepWaiting bool
	// Ifaces, when set, are the interfaces this receiver advertises on,
	// in place of Config.Ifaces.
	Ifaces []string
	Diag   bool // diagnostics: Diag events, and splits in Done
	// MaxConcurrent is how many senders ReceiveMany serves at once, up
	// to MaxConcurrentLimit (4); 0 and 1 are one at a time.
	// Beyond it a sender is refused as busy and told how many transfers
	// are in progress. Above 1, Receive is not available: ReceiveMany
	// hands each sender's transfer to OnEvent (see "Several senders" in
	// the package doc).
	MaxConcurrent int
	// OnEvent is told every event of the receiver's transfers.
	OnEvent Handler
}

// Receiver is a Node's receiving side: a port, a code, an advertisement
// and the page, kept from Listen to Close across the transfers it takes
// (Receive, one at a time; ReceiveMany, several at once). Its guess
// budget is the device's: a transfer that succeeds does not reset it,
// and NewCode (a person asking for a new code) lifts a stop and resets
// nothing.
type Receiver struct {
	n   *Node
	cfg ReceiveConfig
	r   *receive.Receiver
	mux *web.Mux // the page, when served
	adv *discovery.Advertiser
	em  *emitter // one event at a time, in order, across its transfers

	mu      sync.Mutex
	busy    bool // a run (Receive's or ReceiveMany's) has not ended
	stopped bool // no code is checked (CodesStopped) until NewCode
	closed  bool
	many    *many // the run in progress, or the last one
}

// Listen starts receiving: it binds the port, picks the code, starts
// serving the page and advertising, and returns at once. A Node has one
// Receiver at a time; Close it to stop receiving.
func (n *Node) Listen(cfg ReceiveConfig) (*Receiver, error) {
	if cfg.Dir == "" {
		dir, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		cfg.Dir = dir
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.closed:
		return nil, ErrClosed
	case n.memory:
		return nil, errors.New("a device that keeps nothing on disk receives with ReceiveFrom, not Listen")
	case n.recv != nil:
		return nil, errors.New("this device is already receiving")
	case cfg.MaxConcurrent < 0 || cfg.MaxConcurrent > receive.MaxConcurrentLimit:
		return nil, fmt.Errorf("a receiver takes 1 to %d senders at once, not %d", receive.MaxConcurrentLimit, cfg.MaxConcurrent)
	}
	rc := &Receiver{n: n, cfg: cfg, em: newEmitter(cfg.OnEvent)}
	tc := receive.ReceiverConfig{
		Dir: cfg.Dir, Code: cfg.Code, Listen: cfg.Listen, Identity: n.id, Name: n.Name(),
		Policy: receive.Ask, Overwrite: cfg.Overwrite, SaveText: cfg.SaveText, OnEvent: rc.onEngine,
		Diag: cfg.Diag, Timeout: n.cfg.Timeout, AutoAcceptPaired: cfg.AcceptTrusted,
		MaxConcurrent: cfg.MaxConcurrent,
	}
	if cfg.PairedOnly {
		// Paired senders are all it takes: even with a trust file that
		// cannot be read now, it asks the file at each sender, so that
		// fixing the file takes effect without a restart.
		store, err := n.daemonTrust()
		if err != nil {
			return nil, err
		}
		tc.PairedOnly, tc.Paired = true, func(key []byte) bool { return pinnedIn(store, key) }
	} else {
		if n.trust != nil {
			// Without a usable trust file, paired senders are refused
			// outright (the engine's nil Paired); they can still use a
			// code.
			tc.Paired = n.pinned
		}
		tc.Budget = n.guessBudget()
	}
	if cfg.Page {
		m, err := n.servePage(cfg.Listen, false)
		if err != nil {
			return nil, err
		}
		tc.Listener, tc.Listen, rc.mux = m, "", m
	}
	r, err := receive.NewReceiver(tc)
	if err != nil {
		if rc.mux != nil {
			rc.mux.Close()
		}
		return nil, err
	}
	rc.r = r
	if cfg.Advertise {
		ifaces := n.cfg.Ifaces
		if cfg.Ifaces != nil {
			ifaces = cfg.Ifaces
		}
		adv, err := discovery.Advertise(discovery.AdvertiseConfig{
			Name: n.Name(), Fingerprint: n.id.Fingerprint(), Port: r.Port(), Ifaces: ifaces,
			OnSkip: n.cfg.OnSkip,
		})
		if err != nil {
			n.warn(&AdvertiseError{Err: err})
		} else {
			rc.adv = adv
		}
	}
	n.recv = rc
	return rc, nil
}

// AdvertiseError is the warning of a receiver that cannot advertise:
// senders need its address.
type AdvertiseError struct{ Err error }

func (e *AdvertiseError) Error() string {
	return "cannot advertise on the network, senders need the address: " + e.Err.Error()
}
func (e *AdvertiseError) Unwrap() error { return e.Err }

// pinned is the engine's Paired check, asked on a handshake goroutine.
// The file is read each time, so a trust removed elsewhere takes effect
// at once; a file that cannot be read trusts nobody.
func (n *Node) pinned(key []byte) bool { return pinnedIn(n.trust, key) }

func pinnedIn(s *stores.Trust, key []byte) bool {
	_, ok, err := s.Trusted(key)
	return err == nil && ok
}

// daemonTrust is the trust store a paired-only receiver asks, usable or
// not yet.
func (n *Node) daemonTrust() (*stores.Trust, error) {
	if n.trust != nil {
		return n.trust, nil
	}
	s, err := stores.OpenTrust(n.cfg.ConfigDir)
	if err != nil {
		return nil, fmt.Errorf("this receiver takes trusted devices only: %w", err)
	}
	return s, nil
}

// Code is the code a sender must type now.
func (rc *Receiver) Code() string { return rc.r.Code() }

// Port is the TCP port senders (and browsers, with the page) connect to.
func (rc *Receiver) Port() int {
	if rc.mux != nil {
		if a, ok := rc.mux.Addr().(*net.TCPAddr); ok {
			return a.Port
		}
	}
	return rc.r.Port()
}

// Dir is the folder it saves into.
func (rc *Receiver) Dir() string { return rc.cfg.Dir }

// PageEvent is the Page event for the current code: one link per address
// in addrs (IPs; "localhost" when empty). Zero (no links) without the
// page.
func (rc *Receiver) PageEvent(addrs []string) event.Page {
	if rc.mux == nil {
		return event.Page{}
	}
	return pageEvent(rc.mux, addrs, rc.Code(), rc.n.Fingerprint())
}

// NewCode is a person asking for a new code: it retires the current one
// and starts the guess budget over (codes are checked again after
// CodesStopped). A CodeChanged event follows. Never call it from a
// Handler.
func (rc *Receiver) NewCode() string {
	rc.mu.Lock()
	rc.stopped = false
	rc.mu.Unlock()
	return rc.r.NewCode()
}

// CodesStopped says whether the receiver has stopped taking codes
// (until NewCode).
func (rc *Receiver) CodesStopped() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.stopped
}

// Close stops receiving: the port, the page and the advertisement close,
// and a transfer in progress fails (the sender is told why). It returns
// once that transfer's last event is delivered, so never call it from a
// Handler (cancel the transfer there instead).
func (rc *Receiver) Close() error {
	rc.mu.Lock()
	if rc.closed {
		rc.mu.Unlock()
		return nil
	}
	rc.closed = true
	m := rc.many
	rc.mu.Unlock()
	if rc.adv != nil {
		rc.adv.Close()
	}
	err := rc.r.Close()
	if m != nil {
		<-m.done
	}
	rc.n.mu.Lock()
	if rc.n.recv == rc {
		rc.n.recv = nil
	}
	rc.n.mu.Unlock()
	return err
}

// canWait says why the receiver cannot wait for senders now, if it
// cannot: Receive and ReceiveMany ask it with rc.mu held.
func (rc *Receiver) canWait() error {
	switch {
	case rc.closed:
		return errors.New("the receiver is closed")
	case rc.busy:
		return errors.New("the receiver is already waiting for a sender")
	case rc.stopped && !rc.cfg.KeepWaiting:
		return codesStoppedError()
	}
	return nil
}

func codesStoppedError() error {
	return fmt.Errorf("stopped waiting for a sender: %w", transfer.ErrCodesStopped)
}

// conclude ends t, whose engine session ended with sum and err (or
// which no sender reached, the run's error in err): it makes its
// Result, records it, calls free and emits the last event.
func (rc *Receiver) conclude(t *Transfer, sum event.Summary, err error, free func()) {
	ended := rc.n.now()
	t.mu.Lock()
	res := Result{Summary: sum, Err: err, Cancelled: context.Cause(t.ctx) != nil, Declined: t.declined,
		Texts: t.texts, TextsCut: t.textsCut}
	if c := t.conn; c != nil {
		res.Peer.Name, res.Peer.Key, res.PinnedName = c.PeerName, c.PeerKey, c.PinnedName
		res.Addr, res.Paired, res.WrongCodes = c.Addr, c.Paired, c.WrongCodes
	}
	rec, saved := t.rec, t.saved
	t.mu.Unlock()
	switch {
	case err != nil && t.conn == nil && rc.CodesStopped() && !res.Cancelled:
		res.Err = codesStoppedError()
	case res.Declined != "" && (err == nil || errors.Is(err, transfer.ErrDeclined)):
		res.Err = &DeclinedError{Peer: peerText(res), Reason: res.Declined}
	}
	if rec != nil {
		r := *rec
		r.Paths = history.SavedPaths(rc.cfg.Dir, saved)
		rc.n.record(r, res, ended)
	}
	free()
	t.finish(res, rc.cfg.Diag)
}

// DeclinedError is the error of a transfer this end declined: it wraps
// ErrDeclined.
type DeclinedError struct {
	Peer   string // the sender, as a person reads it
	Reason string // why: a person said no, nobody could be asked, ...
}

func (e *DeclinedError) Error() string {
	return fmt.Sprintf("declined the offer from %s: %s", e.Peer, e.Reason)
}
func (e *DeclinedError) Unwrap() error { return transfer.ErrDeclined }
