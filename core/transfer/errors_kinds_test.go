package transfer

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/wire"
)

// TestAbortCodeOfKind: each sentinel with a wire code travels as it, and
// comes out of the peer's abort as the same sentinel.
func TestAbortCodeOfKind(t *testing.T) {
	for _, a := range AbortCodes {
		err := fmt.Errorf("doing it: %w", a.Sentinel)
		if c := CodeOf(err); c != a.Code {
			t.Errorf("codeOf(%v) = %d, want %d", err, c, a.Code)
		}
		back := PeerAbortError("peer", wire.Abort{Code: a.Code, Reason: "because"})
		if !errors.Is(back, a.Sentinel) || KindOf(back) != a.Kind {
			t.Errorf("abort code %d: %v, kind %q, want %v", a.Code, back, KindOf(back), a.Sentinel)
		}
	}
	for _, err := range []error{errors.New("disk on fire"), secure.ErrWrongCode, secure.ErrAuth} {
		if c := CodeOf(err); c != wire.CodeInternal {
			t.Errorf("codeOf(%v) = %d, want internal", err, c)
		}
	}
	if back := PeerAbortError("peer", wire.Abort{Code: 200, Reason: "?"}); !errors.Is(back, ErrPeerFailed) {
		t.Errorf("unknown code: %v", back)
	}
}

// TestAbortCodeTwoSentinels: an error wrapping two sentinels with codes
// gets the same code every time (a map walked once picked at random).
func TestAbortCodeTwoSentinels(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("%w: %w", ErrCancelled, ErrTimeout),
		fmt.Errorf("%w: %w", ErrTimeout, ErrCancelled),
		errors.Join(ErrRefusedPath, ErrProtocol, ErrNoSpace),
	} {
		first := CodeOf(err)
		for range 500 {
			if c := CodeOf(err); c != first {
				t.Fatalf("codeOf(%v) gave %d, then %d", err, first, c)
			}
		}
	}
	if c := CodeOf(fmt.Errorf("%w: %w", ErrTimeout, ErrCancelled)); c != wire.CodeCancelled {
		t.Errorf("a cancel whose cause is a timeout travels as %d, want cancelled", c)
	}
}

// TestAbortCodeOtherVersion: a peer of another transfer protocol version
// is, for this end's person, an incompatible version, and on the wire a
// protocol violation (there is no code for a version).
func TestAbortCodeOtherVersion(t *testing.T) {
	err := fmt.Errorf("peer speaks transfer protocol 9: %w: %w", secure.ErrIncompatibleVersion, ErrProtocol)
	if k, c := KindOf(err), CodeOf(err); k != errkind.Incompatible || c != wire.CodeProtocol {
		t.Errorf("kind %q, code %d", k, c)
	}
}

// The reason a cancelled end sends its peer is the cause it was
// cancelled with, or "cancelled" when the cause adds nothing to the
// ErrCancelled the peer's error wraps already ("cancelled: transfer
// cancelled", not "transfer cancelled: transfer cancelled").
func TestReasonOfCancel(t *testing.T) {
	for _, tc := range []struct {
		cause error
		want  string
	}{
		{nil, "cancelled"},
		{ErrCancelled, "cancelled"},
		{errors.New("the receiver cancelled"), "the receiver cancelled"},
	} {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(tc.cause)
		if got := ReasonOf(ctx, CancelError(ctx)); got != tc.want {
			t.Errorf("cancelled with %v: reason %q, want %q", tc.cause, got, tc.want)
		}
	}
}

// TestAbortOfEveryCode: an abort with any code byte, known or not, read
// off the wire, becomes an error that wraps its code's sentinel, or
// errPeerFailed for a code without one (FuzzMessage in core/wire covers
// the decoding; this the meaning).
func TestAbortOfEveryCode(t *testing.T) {
	for c := range 256 {
		m, err := wire.DecodeAbort(wire.Abort{Code: wire.AbortCode(c), Reason: "why"}.Encode())
		if err != nil {
			t.Fatalf("code %d: %v", c, err)
		}
		want, ok := CodeSentinels[m.Code]
		if !ok {
			want = ErrPeerFailed
		}
		if err := PeerAbortError("peer", m); !errors.Is(err, want) {
			t.Errorf("code %d: %v does not wrap %v", c, err, want)
		}
	}
}
