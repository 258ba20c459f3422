package transfer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/wire"
)

// AbortCodes gives the wire code of each kind that has one, and the
// sentinel the receiver of that code wraps. Kinds without a code travel
// as wire.CodeInternal.
var AbortCodes = []struct {
	Code     wire.AbortCode
	Kind     errkind.Kind
	Sentinel error
}{
	{wire.CodeCancelled, errkind.Cancelled, ErrCancelled},
	{wire.CodeDeclined, errkind.Declined, ErrDeclined},
	{wire.CodeRefusedPath, errkind.RefusedPath, ErrRefusedPath},
	{wire.CodeNoSpace, errkind.NoSpace, ErrNoSpace},
	{wire.CodeProtocol, errkind.Protocol, ErrProtocol},
	{wire.CodeVerify, errkind.Verify, ErrVerify},
	{wire.CodeSourceChanged, errkind.SourceChanged, ErrSourceChanged},
	{wire.CodeTimeout, errkind.Timeout, ErrTimeout},
}

// CodeSentinels is the sentinel each known code wraps on receipt.
var CodeSentinels = func() map[wire.AbortCode]error {
	m := make(map[wire.AbortCode]error, len(AbortCodes))
	for _, a := range AbortCodes {
		m[a.Code] = a.Sentinel
	}
	return m
}()

// ErrPeerFailed is what an Abort with wire.CodeInternal (or an unknown
// code) wraps: the peer hit an error of its own. Its kind is Failure,
// the kind of an error that has none (errkind.Of), so making it with
// errkind.New changed no error's kind.
var ErrPeerFailed = errkind.New(errkind.Failure, "the peer failed")

// CodeOf picks the wire code for a local error: its kind's (errkind.Of),
// or, for a kind without a code, the first of abortCodes' sentinels it
// wraps (another protocol version is a protocol violation on the wire),
// so that an error wrapping two sentinels always gets the same code.
func CodeOf(err error) wire.AbortCode {
	k := KindOf(err)
	for _, a := range AbortCodes {
		if a.Kind == k {
			return a.Code
		}
	}
	for _, a := range AbortCodes {
		if errors.Is(err, a.Sentinel) {
			return a.Code
		}
	}
	return wire.CodeInternal
}

// PeerAbortError turns a received Abort into a local error wrapping the
// sentinel its code names.
func PeerAbortError(peer string, m wire.Abort) error {
	s, ok := CodeSentinels[m.Code]
	if !ok {
		s = ErrPeerFailed
	}
	if m.Code == wire.CodeDeclined {
		return fmt.Errorf("%w (%s)", s, m.Reason)
	}
	return fmt.Errorf("%s ended the transfer: %s: %w", peer, m.Reason, s)
}

// CancelError describes a cancelled context as an ErrCancelled-wrapping
// error, keeping the cause (context.WithCancelCause) as the reason.
func CancelError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) {
		return fmt.Errorf("%w", ErrCancelled)
	}
	if errors.Is(cause, ErrCancelled) {
		return cause
	}
	return fmt.Errorf("%w: %w", ErrCancelled, cause)
}

// ReasonOf is the text sent to the peer for a local error: for a
// cancellation, the cause alone ("cancelled" when the cause says no more
// than ErrCancelled, which the peer's own error says already); for an
// error that names a local path, the text with the path hidden (see
// hidePath).
func ReasonOf(ctx context.Context, err error) string {
	if errors.Is(err, ErrCancelled) && ctx.Err() != nil {
		cause := context.Cause(ctx)
		if cause == nil || errors.Is(cause, context.Canceled) || cause == ErrCancelled {
			return "cancelled"
		}
		return cause.Error()
	}
	var le *localError
	if errors.As(err, &le) {
		return le.reason
	}
	return err.Error()
}

// localError is an error whose text names a path on this device. The
// text is for this end's user; the peer is told only reason, where the
// path is replaced by what the peer already knows it as (a sender's
// absolute source path by the entry's relative path): where files live
// on this device is none of the peer's business.
type localError struct {
	err    error
	reason string
}

func (e *localError) Error() string { return e.err.Error() }
func (e *localError) Unwrap() error { return e.err }

// HidePath marks err as naming the local path abs, which the peer knows
// as shown. Every error built from abs (os's *PathError, f.Name(), our
// own messages) carries it as the same string, so replacing that string
// hides it wherever it appears. A path without a separator ("." or a
// bare name) says nothing about this device and could occur inside other
// words, so it is left alone.
func HidePath(err error, abs, shown string) error {
	if err == nil || abs == shown || !strings.ContainsRune(abs, filepath.Separator) {
		return err
	}
	var le *localError
	if errors.As(err, &le) { // already says only what the peer may know
		return err
	}
	return &localError{err: err, reason: strings.ReplaceAll(err.Error(), abs, shown)}
}

// ForPeer marks err as one the peer is told only reason about, in
// place of err's text: err is for this end's person, with the figures
// and names that the peer has no business knowing (how much space is
// free, what sits in the destination).
func ForPeer(err error, reason string) error {
	return &localError{err: err, reason: reason}
}

// The reasons a receiver gives a sender for refusing an offer because of
// its disk, before its person was asked: one bit each, no figures.
const (
	ReasonNoSpace    = "not enough space"
	ReasonUnwritable = "cannot be written here"
)

// ReasonNoWrite is what a receiver tells the sender when writing into its
// destination fails for want of permission (or on a read-only file
// system) after it accepted: a plain reason instead of the system call's
// text, which named a folder the sender knows nothing of.
const ReasonNoWrite = "cannot write into its destination folder (permission denied)"

// NoWrite reports a local write refused by permissions or a read-only
// file system.
func NoWrite(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// NetError translates a stream error: a read deadline that fired is the
// peer going silent.
func NetError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, ErrTimeout) {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

// InTheWay marks an error of core/place's that says what stands in the
// destination where a partial file goes as one the sender is told only
// that the destination cannot be written; one that already says what
// the peer is told keeps it.
func InTheWay(err error) error {
	var le *localError
	if err == nil || !place.InTheWay(err) || errors.As(err, &le) {
		return err
	}
	return ForPeer(err, ReasonUnwritable)
}

// IsPeerGone reports errors that mean the other end is no longer there
// to be told anything.
func IsPeerGone(err error) bool {
	return errors.Is(err, secure.ErrConnectionLost) || errors.Is(err, secure.ErrTruncated) || errors.Is(err, ErrTimeout)
}

// Refused reports a rejection (core/secure's IsRejection): the receiver
// already closed, so no abort can reach it.
func Refused(err error) bool { return secure.IsRejection(err) }
