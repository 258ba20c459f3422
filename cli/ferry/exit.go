package main

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/app/event"
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
// This file only words kinds: exitCodeOf and kindHint.
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
	return exitCodeOf(k), string(k), firstNonEmpty(hint, kindHint(k))
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

// kindHint is what a person is told to do about an error of kind k,
// unless the error carries a hint of its own (withHint): core's words
// for the kind (errkind.WordsOf), already in this CLI's form, and after
// them the flag or command that does it here (affordances).
func kindHint(k errkind.Kind) string {
	a, ok := affordances[k]
	switch {
	case ok && a == "":
		return ""
	case a != "":
		return errkind.WordsOf(k).Hint + "; " + a
	}
	return errkind.WordsOf(k).Hint
}

// affordances are the CLI's own part of a hint: the flag or the command
// that does what core's words say, for the kinds whose fix has one. An
// entry with no words gives no hint at all: the error line says it all
// (a decline, a cancel), or the error brings its own (a command line
// that cannot run), or it is no one kind (a failure).
var affordances = map[errkind.Kind]string{
	errkind.CodesStopped:   "'ferry receive' starts again with a new code",
	errkind.NotPaired:      "--trust answers yes for you",
	errkind.KeyChanged:     "'ferry trust remove NAME_OR_FINGERPRINT' removes it",
	errkind.TrustFile:      "'ferry trust list' says what is wrong with it",
	errkind.HistoryFile:    "--no-history runs without it",
	errkind.NoSpace:        "--dir picks another folder",
	errkind.Permission:     "--dir picks a folder this user can write",
	errkind.DirNotWritable: "--dir picks another folder",
	errkind.AddressInUse:   "--listen picks another port, port 0 any free one",
	errkind.Unreachable:    "--to takes the address and port the receiver shows",
	errkind.NoSuchDevice:   "'ferry trust list' shows the trusted devices, 'ferry peers' the ones on the network",
	errkind.ClipboardEmpty: "naming a file sends it instead",
	errkind.Browse:         "--iface picks the network interface, --to takes the address",
	errkind.Declined:       "",
	errkind.Cancelled:      "",
	errkind.Usage:          "",
	errkind.Failure:        "",
}

// refusalHint is a refused sender's hint as the receiver's person reads
// it: core's (event.Refused's), and after it the CLI's affordance for
// its kind: the trust file's while that file is what refused it, else
// not_paired's (--trust).
func refusalHint(e event.Refused) string {
	k := errkind.Kind(e.Kind)
	if e.Reason == "trust_off" {
		k = errkind.TrustFile
	}
	if a := affordances[k]; a != "" && e.Hint != "" {
		return e.Hint + "; " + a
	}
	return e.Hint
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
