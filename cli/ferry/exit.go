package main

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
)

// Exit codes. Scripts branch on them; they never change meaning.
const (
	exitOK       = 0 // the transfer completed and every file was confirmed
	exitFailure  = 1 // anything else went wrong: network, disk, protocol
	exitUsage    = 2 // the command line cannot run: bad flags, missing paths
	exitWrong    = 3 // authentication failed: wrong code, code retired, not paired, key changed
	exitDeclined = 4 // declined or cancelled, by either end
	exitVerify   = 5 // a file failed verification (hash mismatch)
	exitStopped  = 6 // the receiver stopped taking codes after too many wrong ones
)

// usageError is a command line that cannot run as given. It is found
// before anything touches the network, so nothing happened.
type usageError struct {
	msg  string
	hint string
	kind string // the error event's kind; "" is "usage"
}

func (e *usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// hinted attaches a hint for a person to an error, without changing what
// errors.Is finds in it.
type hinted struct {
	err  error
	hint string
}

func (e *hinted) Error() string { return e.err.Error() }
func (e *hinted) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return &hinted{err: err, hint: hint} }

// classify maps an error to its exit code, a stable kind for the JSON
// error event, and a hint for a person. It is the one place where errors
// become exit codes.
func classify(err error) (code int, kind, hint string) {
	if err == nil {
		return exitOK, "", ""
	}
	var h *hinted
	if errors.As(err, &h) {
		hint = h.hint
	}
	var u *usageError
	switch {
	case errors.As(err, &u):
		return exitUsage, firstNonEmpty(u.kind, "usage"), firstNonEmpty(hint, u.hint)
	case errors.Is(err, secure.ErrWrongCode):
		return exitWrong, "wrong_code", firstNonEmpty(hint, "check the code the receiver shows and try again")
	case errors.Is(err, secure.ErrCodeRetired):
		return exitWrong, "code_retired", firstNonEmpty(hint, "the receiver now shows a new code: use that one")
	case errors.Is(err, secure.ErrCodesHeld):
		return exitWrong, "codes_held", firstNonEmpty(hint,
			"the receiver is holding back codes after too many wrong ones: wait a minute and send again, or ask the person there for a new code")
	case errors.Is(err, transfer.ErrCodesStopped):
		return exitStopped, "codes_stopped", firstNonEmpty(hint, codesStoppedHint)
	case errors.Is(err, secure.ErrNotPaired):
		return exitWrong, "not_paired", firstNonEmpty(hint, pairAgainHint)
	case errors.Is(err, secure.ErrKeyChanged):
		return exitWrong, "key_changed", firstNonEmpty(hint,
			"if the other device made a new key, run 'ferry trust remove NAME_OR_FINGERPRINT', then pair again: send once with the code and answer yes to trust")
	case errors.Is(err, secure.ErrBusy):
		return exitFailure, "busy", firstNonEmpty(hint, "the receiver is in another transfer: send again when it has finished")
	case errors.Is(err, trust.ErrCorrupt), errors.Is(err, trust.ErrUnsupportedVersion):
		return exitFailure, "trust_file", firstNonEmpty(hint, "fix the file or move it away: ferry never rewrites a trust file it cannot read")
	case errors.Is(err, transfer.ErrDeclined):
		return exitDeclined, "declined", hint
	case errors.Is(err, transfer.ErrCancelled), errors.Is(err, errInterrupted),
		errors.Is(err, context.Canceled):
		return exitDeclined, "cancelled", hint
	case errors.Is(err, transfer.ErrVerify):
		return exitVerify, "verify", firstNonEmpty(hint, "the data was damaged or changed on the way: send again")
	case errors.Is(err, secure.ErrIncompatibleVersion):
		return exitFailure, "incompatible_version", firstNonEmpty(hint, "update ferry on both devices to the same version")
	case errors.Is(err, transfer.ErrNoSpace):
		return exitFailure, "no_space", firstNonEmpty(hint, "free some space on the receiver, or pick another folder with --dir")
	case errors.Is(err, transfer.ErrTimeout):
		return exitFailure, "timeout", firstNonEmpty(hint, "check that both devices are still on the network")
	case errors.Is(err, transfer.ErrSourceChanged):
		return exitFailure, "source_changed", firstNonEmpty(hint, "wait until the file stops changing, then send again")
	case errors.Is(err, transfer.ErrRefusedPath):
		return exitFailure, "refused_path", hint
	case errors.Is(err, secure.ErrTruncated), errors.Is(err, secure.ErrConnectionLost):
		return exitFailure, "connection_lost", firstNonEmpty(hint, "the other end stopped or the network dropped: send again to resume where it stopped")
	case errors.Is(err, secure.ErrNotFerry):
		return exitFailure, "not_ferry", firstNonEmpty(hint, "check the port: it is not a ferry receiver")
	case isDialError(err):
		return exitFailure, "unreachable", firstNonEmpty(hint, "check the address and port the receiver shows, and that it is still waiting")
	case platform.IsAddrInUse(err):
		return exitFailure, "address_in_use", firstNonEmpty(hint, "pick another port with --listen, or port 0 for any free one")
	}
	return exitFailure, "failure", hint
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || platform.IsUnreachable(err)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// relabel gives err a message of its own for people while errors.Is still
// finds base in it (a decline the receiver explains, say).
func relabel(msg string, base error) error { return &relabeled{msg: msg, base: base} }

type relabeled struct {
	msg  string
	base error
}

func (e *relabeled) Error() string { return e.msg }
func (e *relabeled) Unwrap() error { return e.base }
