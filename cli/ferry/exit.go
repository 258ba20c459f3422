package main

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/transfer"
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

// classify gives an error's exit code, its kind for the JSON error event,
// and a hint for a person. The kind is core/transfer's (ErrorKindOf), but
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
		return exitUsage, firstNonEmpty(u.kind, string(transfer.KindUsage)), firstNonEmpty(hint, u.hint)
	case errors.Is(err, errInterrupted):
		return exitDeclined, string(transfer.KindCancelled), hint
	}
	k := transfer.ErrorKindOf(err)
	return exitCodeOf(k), string(k), firstNonEmpty(hint, kindHints[k])
}

// exitCodeOf is the exit code of a kind.
func exitCodeOf(k transfer.ErrorKind) int {
	switch k {
	case "":
		return exitOK
	case transfer.KindWrongCode, transfer.KindCodeRetired, transfer.KindCodesHeld,
		transfer.KindNotPaired, transfer.KindKeyChanged:
		return exitWrong
	case transfer.KindCodesStopped:
		return exitStopped
	case transfer.KindDeclined, transfer.KindCancelled:
		return exitDeclined
	case transfer.KindVerify:
		return exitVerify
	case transfer.KindUsage, transfer.KindBadCode, transfer.KindDirNotWritable:
		return exitUsage
	}
	return exitFailure
}

// kindHints is what a person is told to do about each kind, unless the
// error carries a hint of its own (withHint).
var kindHints = map[transfer.ErrorKind]string{
	transfer.KindWrongCode:      "check the code the receiver shows and try again",
	transfer.KindCodeRetired:    "the receiver now shows a new code: use that one",
	transfer.KindCodesHeld:      "the receiver is holding back codes after too many wrong ones: wait a minute and send again, or ask the person there for a new code",
	transfer.KindCodesStopped:   codesStoppedHint,
	transfer.KindNotPaired:      pairAgainHint,
	transfer.KindKeyChanged:     "if the other device made a new key, run 'ferry trust remove NAME_OR_FINGERPRINT', then pair again: send once with the code and answer yes to trust",
	transfer.KindBusy:           "the receiver is in another transfer: send again when it has finished",
	transfer.KindTrustFile:      "fix the file or move it away: ferry never rewrites a trust file it cannot read",
	transfer.KindHistoryFile:    "move the file away to start a new history, or pass --no-history",
	transfer.KindVerify:         "the data was damaged or changed on the way: send again",
	transfer.KindDamaged:        "the data was damaged or altered on the network, and nothing damaged was kept: send again; if it keeps happening, something on the way is changing it",
	transfer.KindIncompatible:   "update ferry on both devices to the same version",
	transfer.KindNoSpace:        "free some space on the receiver, or pick another folder with --dir",
	transfer.KindTimeout:        "check that both devices are still on the network",
	transfer.KindSourceChanged:  "wait until the file stops changing, then send again",
	transfer.KindProtocol:       "update ferry on both devices; if both are up to date, this is a bug",
	transfer.KindConnectionLost: "the other end stopped or the network dropped: send again to resume where it stopped",
	transfer.KindNotFerry:       "check the port: it is not a ferry receiver",
	transfer.KindUnreachable:    "check the address and port the receiver shows, and that it is still waiting",
	transfer.KindAddressInUse:   "pick another port with --listen, or port 0 for any free one",
	transfer.KindPermission:     "check the permissions of the files, or pick a folder this user can write with --dir",
	transfer.KindFileMissing:    "a file or folder was moved or deleted after it was named: send again without it",
	transfer.KindInternal:       "this is a bug in ferry: please report it with the message",
	transfer.KindNoSuchDevice:   "'ferry trust list' shows the trusted devices, 'ferry peers' the ones on the network",
	transfer.KindAmbiguous:      "give more of the fingerprint",
	transfer.KindClipboardEmpty: "copy something first, or name a file to send",
	transfer.KindBrowse:         "check the network interface (--iface), or give the receiver's address with --to",
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
