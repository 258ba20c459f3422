package main

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/errkind"
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

// Kind is the error event's kind (core/errkind reads it): so core/app's
// history records a command line that could not run for a receiver as
// the --json error event names it.
func (e *usageError) Kind() errkind.Kind {
	return errkind.Kind(firstNonEmpty(e.kind, string(errkind.Usage)))
}

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

// classify gives an error's exit code, its kind for the JSON error event,
// and a hint for a person. The kind is core/errkind's (errkind.Of), but
// for the CLI's own errors: a command line that cannot run, an interrupt.
// This file only words kinds: exitCodeOf and kindHints.
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
		return exitUsage, firstNonEmpty(u.kind, string(errkind.Usage)), firstNonEmpty(hint, u.hint)
	case errors.Is(err, errInterrupted):
		return exitDeclined, string(errkind.Cancelled), hint
	}
	k := errkind.Of(err)
	return exitCodeOf(k), string(k), firstNonEmpty(hint, kindHints[k])
}

// exitCodeOf is the exit code of a kind.
func exitCodeOf(k errkind.Kind) int {
	switch k {
	case "":
		return exitOK
	case errkind.WrongCode, errkind.CodeRetired, errkind.CodesHeld,
		errkind.NotPaired, errkind.KeyChanged:
		return exitWrong
	case errkind.CodesStopped:
		return exitStopped
	case errkind.Declined, errkind.Cancelled:
		return exitDeclined
	case errkind.Verify:
		return exitVerify
	case errkind.Usage, errkind.BadCode, errkind.DirNotWritable:
		return exitUsage
	}
	return exitFailure
}

// kindHints is what a person is told to do about each kind, unless the
// error carries a hint of its own (withHint).
var kindHints = map[errkind.Kind]string{
	errkind.WrongCode:      "check the code the receiver shows and try again",
	errkind.CodeRetired:    "the receiver now shows a new code: use that one",
	errkind.CodesHeld:      "the receiver is holding back codes after too many wrong ones: wait a minute and send again, or ask the person there for a new code",
	errkind.CodesStopped:   codesStoppedHint,
	errkind.NotPaired:      pairAgainHint,
	errkind.KeyChanged:     "if the other device made a new key, run 'ferry trust remove NAME_OR_FINGERPRINT', then pair again: send once with the code and answer yes to trust",
	errkind.Busy:           "the receiver is in another transfer: send again when it has finished",
	errkind.TrustFile:      "fix the file or move it away: ferry never rewrites a trust file it cannot read",
	errkind.HistoryFile:    "move the file away to start a new history, or pass --no-history",
	errkind.Verify:         "the data was damaged or changed on the way: send again",
	errkind.Damaged:        "the data was damaged or altered on the network, and nothing damaged was kept: send again; if it keeps happening, something on the way is changing it",
	errkind.Incompatible:   "update ferry on both devices to the same version",
	errkind.NoSpace:        "free some space on the receiver, or pick another folder with --dir",
	errkind.Timeout:        "check that both devices are still on the network",
	errkind.SourceChanged:  "wait until the file stops changing, then send again",
	errkind.Protocol:       "update ferry on both devices; if both are up to date, this is a bug",
	errkind.ConnectionLost: "the other end stopped or the network dropped: send again to resume where it stopped",
	errkind.NotFerry:       "check the port: it is not a ferry receiver",
	errkind.Unreachable:    "check the address and port the receiver shows, and that it is still waiting",
	errkind.AddressInUse:   "pick another port with --listen, or port 0 for any free one",
	errkind.Permission:     "check the permissions of the files, or pick a folder this user can write with --dir",
	errkind.FileMissing:    "a file or folder was moved or deleted after it was named: send again without it",
	errkind.Internal:       "this is a bug in ferry: please report it with the message",
	errkind.NoSuchDevice:   "'ferry trust list' shows the trusted devices, 'ferry peers' the ones on the network",
	errkind.Ambiguous:      "give more of the fingerprint",
	errkind.ClipboardEmpty: "copy something first, or name a file to send",
	errkind.Browse:         "check the network interface (--iface), or give the receiver's address with --to",
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
