package receive

import (
	"errors"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// Refused events: a paired-mode handshake that core/secure refused, or a
// code-mode one that a paired-only receiver refused, and only that, is
// reported to the front end, within a limit.

// A refusal costs a sender one connection and a few bytes (a preamble
// with the paired bit, or a forged "key changed" rejection), so anyone on
// the network could make a receiver report thousands a second. A person
// sends a handful at most; beyond refusedBurst at once, one per
// refusedEvery is reported and the rest are counted.
const (
	refusedBurst = 4
	refusedEvery = time.Second
)

// refusalLimit is a leaky bucket of refusedBurst reports draining one
// per refusedEvery. The Receiver keeps it across Serve calls, so a front
// end that serves again after each transfer is limited as a whole.
type refusalLimit struct {
	mu      sync.Mutex
	full    time.Time // when the bucket will be empty again
	dropped int       // refusals held back since the last one reported
}

// allow says whether a refusal at now is reported, and how many were
// held back before it.
func (l *refusalLimit) allow(now time.Time) (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.full.Before(now) {
		l.full = now
	}
	if l.full.Sub(now) > (refusedBurst-1)*refusedEvery {
		l.dropped++
		return false, 0
	}
	l.full = l.full.Add(refusedEvery)
	dropped, l.dropped = l.dropped, 0
	return true, dropped
}

// pinCheck is one handshake's ReceiverConfig.Paired, remembering the key
// it refused: core/secure's error says why in words, and the front end
// needs the key. core/secure calls it on the handshake's goroutine.
type pinCheck struct {
	paired  func(peerKey []byte) bool
	refused []byte
}

// hook returns the check to give core/secure; nil stays nil, which
// refuses paired mode outright.
func (c *pinCheck) hook() func([]byte) bool {
	if c.paired == nil {
		return nil
	}
	return func(key []byte) bool {
		if c.paired(key) {
			return true
		}
		c.refused = key
		return false
	}
}

// reportRefusal emits Refused for a handshake that core/secure ended
// with ErrNotPaired or ErrNoCodes, within the limit; any other failure is
// not a refusal and is not reported.
func (r *Receiver) reportRefusal(ev *transfer.Emitter, addr string, pins *pinCheck, err error) {
	if !errors.Is(err, secure.ErrNotPaired) && !errors.Is(err, secure.ErrNoCodes) {
		return
	}
	e := event.Refused{Addr: addr, Err: err}
	switch {
	case errors.Is(err, secure.ErrNoCodes):
		e.Reason = event.CodesOff
	case pins.paired == nil:
		e.Reason = event.TrustOff
	case pins.refused != nil:
		e.Reason, e.PeerKey, e.PeerFingerprint = event.NotTrusted, pins.refused, secure.Fingerprint(pins.refused)
	default:
		// The responder's only other ErrNotPaired: the sender rejected
		// this device's key in place of message 3.
		e.Reason = event.PinMismatch
	}
	ok, dropped := r.refusals.allow(r.cfg.hooks.Clock())
	if !ok {
		return
	}
	e.Dropped = dropped
	ev.Emit(e)
}
