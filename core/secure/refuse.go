package secure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Rejections. An end that refuses a connection tells the other why before
// it closes, in cleartext: a zero length where a handshake message or the
// first record would be (neither is ever empty), then one reason byte. A
// forged rejection gains an attacker nothing that closing the socket would
// not; it only lets an honest peer say more than "connection lost".
const (
	rejectWrongCode   = 1 // responder: message 3 did not open
	rejectCodeRetired = 2 // responder: ...and the code is now retired
	rejectBusy        = 3 // responder: in another transfer
	rejectNotPaired   = 4 // responder: no pin for the initiator's key
	rejectPairedOff   = 5 // responder: accepts no paired-mode handshake
	rejectKeyChanged  = 6 // initiator: the responder's key is not the pinned one
	rejectCodesHeld   = 7 // responder: message 3 not checked, guesses are held back
	rejectNoCodes     = 8 // responder: takes paired mode only, for message 2
)

// rejections are the errors a rejection read from the peer wraps
// (fromResponder, fromInitiator): what IsRejection looks for.
// TestEveryRejectionIsARejection fails when a reason's error is missing.
var rejections = []error{ErrWrongCode, ErrCodeRetired, ErrCodesHeld, ErrBusy, ErrNotPaired, ErrNoCodes}

// IsRejection reports whether err wraps one of the errors a rejection
// stands for (a wrong or retired code, codes held back, busy, not
// paired): the peer refused the connection and closed it, so nothing
// more can reach it.
func IsRejection(err error) bool {
	for _, r := range rejections {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

// busyTimeout bounds RefuseBusy's exchange: an honest initiator sends its
// preamble as soon as it connects.
const busyTimeout = 2 * time.Second

// fromResponder is what a rejection means to the initiator: the
// sentinel, and what the other device said beyond it (nothing for a
// wrong, retired or held code, which the sentinel says).
func fromResponder(reason byte) error {
	var err error
	why := ""
	switch reason {
	case rejectWrongCode:
		err = ErrWrongCode
	case rejectCodeRetired:
		err = ErrCodeRetired
	case rejectCodesHeld:
		err = ErrCodesHeld
	case rejectBusy:
		err, why = ErrBusy, "the other device is in another transfer; try again when it has finished"
	case rejectNotPaired:
		err, why = ErrNotPaired, "the other device does not trust this one: pair again with a code"
	case rejectPairedOff:
		err, why = ErrNotPaired, "the other device accepts no paired transfers: send with its code"
	case rejectNoCodes:
		err, why = ErrNoCodes, "the other device takes trusted devices only and checks no code (none was tried): send from a device it trusts"
	default:
		return fmt.Errorf("reading rejection: %w: unknown reason %d", ErrMalformed, reason)
	}
	if why == "" {
		return fmt.Errorf("the receiver rejected the handshake: %w", err)
	}
	return fmt.Errorf("%w: %s", err, why)
}

// fromInitiator is what a rejection means to the responder: only a paired
// initiator whose pin did not match sends one, in place of message 3.
func fromInitiator(reason byte) error {
	if reason == rejectKeyChanged {
		return fmt.Errorf("%w: the sender's pin for this device does not match this device's key: pair again with a code", ErrNotPaired)
	}
	return fmt.Errorf("reading rejection: %w: unknown reason %d", ErrMalformed, reason)
}

// reject tells the peer why, then closes gracefully: FIN first, then
// drain what the peer already sent, so that the kernel does not answer
// unread data with a reset that could destroy the rejection before the
// peer reads it.
func reject(nc net.Conn, reason byte) { rejectWith(nc, reason) }

// rejectWith is reject with bytes that follow the reason (busy's count).
func rejectWith(nc net.Conn, reason byte, more ...byte) {
	nc.Write(append([]byte{0, 0, reason}, more...))
	if tc, ok := nc.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
	nc.SetReadDeadline(time.Now().Add(time.Second))
	io.Copy(io.Discard, io.LimitReader(nc, 1<<20))
}

// readRejection reads a rejection's reason once its zero length was read.
func readRejection(nc net.Conn, what string, meaning func(byte) error) error {
	var b [1]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return netErr("reading "+what, err)
	}
	if meaning == nil {
		return fmt.Errorf("reading %s: %w: zero length", what, ErrMalformed)
	}
	err := meaning(b[0])
	if b[0] == rejectBusy && errors.Is(err, ErrBusy) {
		// A count may follow; the responder closed its direction after
		// it, so this read ends at once either way.
		var n [1]byte
		_, nerr := io.ReadFull(nc, n[:])
		return busyCount(err, n[0], nerr)
	}
	return err
}

// RefuseBusy answers, as the responder, a connection that arrives while
// this end is in another transfer: it reads the initiator's preamble,
// answers with its own, then sends the busy rejection in place of message
// 2 and closes its direction. The initiator's handshake fails with
// ErrBusy instead of hanging. It spends at most a couple of seconds on a
// peer that says nothing (less if ctx ends first) and no memory beyond a
// few bytes; the caller still closes nc.
func RefuseBusy(ctx context.Context, nc net.Conn) error { return RefuseBusyWith(ctx, nc, 0) }

// RefuseBusyWith is RefuseBusy that also tells the initiator how many
// transfers this end runs (running, 1 to 255; 0 says nothing): the
// initiator's error is then a *BusyError carrying it. The count is one
// byte after the rejection's reason, which an initiator that does not
// know it never reads.
func RefuseBusyWith(ctx context.Context, nc net.Conn, running int) error {
	err := bounded(ctx, nc, busyTimeout, func() error {
		if _, _, _, err := answerPreamble(nc, Auto, hasAESHardware()); err != nil {
			return err
		}
		rejectBusyWith(nc, running)
		return nil
	})
	if err != nil {
		return fmt.Errorf("refusing a connection while busy: %w", err)
	}
	return nil
}

// RefuseBusy is RefuseBusy for a connection whose handshake completed
// after this end became busy: the initiator's first Read returns ErrBusy.
// It closes the Conn.
func (c *Conn) RefuseBusy() { c.RefuseBusyWith(0) }

// RefuseBusyWith is RefuseBusy with the number of transfers this end
// runs (see RefuseBusyWith).
func (c *Conn) RefuseBusyWith(running int) {
	c.nc.SetWriteDeadline(time.Now().Add(busyTimeout))
	rejectBusyWith(c.nc, running)
	c.Close()
}

// rejectBusyWith sends the busy rejection, followed by running when it
// is 1 to 255.
func rejectBusyWith(nc net.Conn, running int) {
	if running < 1 || running > 255 {
		reject(nc, rejectBusy)
		return
	}
	rejectWith(nc, rejectBusy, byte(running))
}

// BusyError is the initiator's error when the responder refused it as
// busy and said how many transfers it runs (RefuseBusyWith). It wraps
// ErrBusy.
type BusyError struct{ Running int }

func (e *BusyError) Error() string {
	if e.Running == 1 {
		return fmt.Sprintf("%v: the other device is in another transfer; try again when it has finished", ErrBusy)
	}
	return fmt.Sprintf("%v: the other device is in %d transfers, as many as it takes at once; try again when one has finished", ErrBusy, e.Running)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// busyCount turns a busy rejection into a *BusyError when the byte after
// its reason (more, read by the caller: an error when there is none, as
// from a responder that sends no count) says how many transfers run.
func busyCount(err error, more byte, moreErr error) error {
	if moreErr != nil || more == 0 || !errors.Is(err, ErrBusy) {
		return err
	}
	return &BusyError{Running: int(more)}
}
