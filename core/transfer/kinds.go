package transfer

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"syscall"

	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
)

// ErrorKind is the stable name of why something failed: the one taxonomy of
// Ferry's errors. ErrorKindOf finds an error's kind; the abort code on the
// wire, the CLI's exit code and --json kind, the GUI's sentence, mobile's
// Failure.ErrorKind, the browser page's kind and core/history's ErrorKind are
// all read from it. A front end words a kind (a sentence, an exit code,
// a hint); it never maps errors itself. The strings never change meaning:
// scripts branch on them and history files keep them.
type ErrorKind string

// The kinds, in ErrorKindOf's order: the most specific first.
const (
	KindWrongCode      ErrorKind = "wrong_code"    // the two ends used different codes
	KindCodeRetired    ErrorKind = "code_retired"  // the receiver shows a new code after too many wrong ones
	KindCodesHeld      ErrorKind = "codes_held"    // the receiver checks no code for a while after too many wrong ones
	KindCodesStopped   ErrorKind = "codes_stopped" // the receiver's guess budget is spent: it checks no more codes
	KindNotPaired      ErrorKind = "not_paired"    // one end has no pin for the other
	KindKeyChanged     ErrorKind = "key_changed"   // the peer's key is not the pinned one
	KindBusy           ErrorKind = "busy"          // the receiver is in another transfer
	KindDeclined       ErrorKind = "declined"      // the receiver said no
	KindCancelled      ErrorKind = "cancelled"     // either end stopped the transfer
	KindVerify         ErrorKind = "verify"        // a file's hash did not match: it was not kept
	KindDamaged        ErrorKind = "damaged"       // a record failed authentication: data damaged or altered on the way
	KindIncompatible   ErrorKind = "incompatible_version"
	KindNoSpace        ErrorKind = "no_space"        // the destination's disk is full
	KindTimeout        ErrorKind = "timeout"         // the peer went silent
	KindSourceChanged  ErrorKind = "source_changed"  // a file changed on the sender's disk mid-transfer
	KindRefusedPath    ErrorKind = "refused_path"    // the receiver will not write a path the offer named
	KindProtocol       ErrorKind = "protocol"        // the peer broke the protocol
	KindConnectionLost ErrorKind = "connection_lost" // the stream was cut
	KindNotFerry       ErrorKind = "not_ferry"       // what answered is not a Ferry device
	KindUnreachable    ErrorKind = "unreachable"     // nothing answered at the peer's addresses
	KindAddressInUse   ErrorKind = "address_in_use"  // the port to listen on is taken
	KindPermission     ErrorKind = "permission_denied"
	KindFileMissing    ErrorKind = "file_missing" // a file or folder vanished after it was chosen
	KindInternal       ErrorKind = "internal"     // a bug in Ferry
	KindTrustFile      ErrorKind = "trust_file"   // the trust file cannot be read
	KindHistoryFile    ErrorKind = "history_file" // the history file cannot be read
	KindNoSuchDevice   ErrorKind = "no_such_device"
	KindAmbiguous      ErrorKind = "ambiguous" // a name or fingerprint matches several devices
	KindClipboardTool  ErrorKind = "clipboard_tool"
	KindClipboardEmpty ErrorKind = "clipboard_empty"
	KindBrowse         ErrorKind = "browse" // looking for devices on the network failed

	// Kinds of a command line that cannot run, found before anything
	// crosses the network: the front ends make these errors themselves
	// (with NewError) and word them.
	KindUsage          ErrorKind = "usage"
	KindBadCode        ErrorKind = "bad_code"         // a code of the wrong form
	KindDirNotWritable ErrorKind = "dir_not_writable" // the destination cannot be written

	// KindFailure is every error no rule names.
	KindFailure ErrorKind = "failure"
)

// ErrorKinds lists every kind, KindFailure last: what a front end must word.
func ErrorKinds() []ErrorKind {
	return []ErrorKind{KindWrongCode, KindCodeRetired, KindCodesHeld, KindCodesStopped, KindNotPaired,
		KindKeyChanged, KindBusy, KindDeclined, KindCancelled, KindVerify, KindDamaged, KindIncompatible,
		KindNoSpace, KindTimeout, KindSourceChanged, KindRefusedPath, KindProtocol, KindConnectionLost,
		KindNotFerry, KindUnreachable, KindAddressInUse, KindPermission, KindFileMissing, KindInternal,
		KindTrustFile, KindHistoryFile, KindNoSuchDevice, KindAmbiguous, KindClipboardTool,
		KindClipboardEmpty, KindBrowse, KindUsage, KindBadCode, KindDirNotWritable, KindFailure}
}

// kindRule gives the kind of the errors that fit it.
type kindRule struct {
	kind ErrorKind
	fits func(error) bool
}

// kindRules are tried in order, so an error that wraps two sentinels
// always gets the same kind: the more specific comes first (a wrong code
// also closes the connection; a cancel's cause may be a timeout).
var kindRules = []kindRule{
	{KindWrongCode, is(secure.ErrWrongCode)},
	{KindCodeRetired, is(secure.ErrCodeRetired)},
	{KindCodesHeld, is(secure.ErrCodesHeld)},
	{KindCodesStopped, is(ErrCodesStopped)},
	{KindNotPaired, is(secure.ErrNotPaired, secure.ErrNoCodes)},
	{KindKeyChanged, is(secure.ErrKeyChanged)},
	{KindBusy, is(secure.ErrBusy)},
	{KindDeclined, is(ErrDeclined)},
	{KindCancelled, is(ErrCancelled, context.Canceled)},
	{KindVerify, is(ErrVerify)},
	{KindDamaged, is(secure.ErrAuth)},
	{KindIncompatible, is(secure.ErrIncompatibleVersion)},
	{KindNoSpace, func(err error) bool { return errors.Is(err, ErrNoSpace) || platform.IsNoSpace(err) }},
	{KindTimeout, is(ErrTimeout, secure.ErrHandshakeTimeout, context.DeadlineExceeded)},
	{KindSourceChanged, is(ErrSourceChanged)},
	{KindRefusedPath, is(ErrRefusedPath)},
	{KindProtocol, is(ErrProtocol, secure.ErrMalformed, secure.ErrTrailingData)},
	{KindConnectionLost, is(secure.ErrTruncated, secure.ErrConnectionLost, syscall.ECONNRESET, syscall.EPIPE)},
	{KindNotFerry, is(secure.ErrNotFerry)},
	{KindUnreachable, unreachable},
	{KindAddressInUse, platform.IsAddrInUse},
	{KindConnectionLost, streamFailed},
	{KindPermission, is(fs.ErrPermission, syscall.EROFS)},
	{KindFileMissing, is(fs.ErrNotExist)},
	{KindInternal, is(secure.ErrClosed, secure.ErrBadPSK)},
}

// ErrorKindOf names err's kind: the first rule that fits, then the kind an
// error made by NewError carries (core/trust's, core/history's, a front
// end's own), else KindFailure. A nil error has no kind ("").
func ErrorKindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	for _, r := range kindRules {
		if r.fits(err) {
			return r.kind
		}
	}
	var k *kindError
	if errors.As(err, &k) {
		return k.kind
	}
	return KindFailure
}

// NewError returns a sentinel error of kind k: for a package that this
// one cannot name in its rules because it imports core/transfer or is not
// built everywhere (core/trust, core/history, core/discovery,
// core/clipboard), and for a front end's own errors. An error that
// stands for such a sentinel must wrap it (Unwrap), not only match it
// (an Is method): ErrorKindOf finds the kind by errors.As.
func NewError(k ErrorKind, text string) error { return &kindError{kind: k, text: text} }

type kindError struct {
	kind ErrorKind
	text string
}

func (e *kindError) Error() string { return e.text }

func is(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// unreachable reports a dial that nobody answered, or a name that did not
// resolve.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns) || platform.IsUnreachable(err)
}

// streamFailed reports a read or write on a connection that failed.
func streamFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && (op.Op == "read" || op.Op == "write")
}
