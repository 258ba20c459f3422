package errkind

import (
	"context"
	"errors"
	"io/fs"
)

// Kind is the stable name of why something failed.
type Kind string

// The kinds, in Of's order: the most specific first.
const (
	WrongCode      Kind = "wrong_code"    // the two ends used different codes
	CodeRetired    Kind = "code_retired"  // the receiver shows a new code after too many wrong ones
	CodesHeld      Kind = "codes_held"    // the receiver checks no code for a while after too many wrong ones
	CodesStopped   Kind = "codes_stopped" // the receiver's guess budget is spent: it checks no more codes
	NotPaired      Kind = "not_paired"    // one end has no pin for the other
	KeyChanged     Kind = "key_changed"   // the peer's key is not the pinned one
	Busy           Kind = "busy"          // the receiver is in another transfer
	Declined       Kind = "declined"      // the receiver said no
	Cancelled      Kind = "cancelled"     // either end stopped the transfer
	Verify         Kind = "verify"        // a file's hash did not match: it was not kept
	Damaged        Kind = "damaged"       // a record failed authentication: data damaged or altered on the way
	Incompatible   Kind = "incompatible_version"
	NoSpace        Kind = "no_space"        // the destination's disk is full
	Timeout        Kind = "timeout"         // the peer went silent
	SourceChanged  Kind = "source_changed"  // a file changed on the sender's disk mid-transfer
	RefusedPath    Kind = "refused_path"    // the receiver will not write a path the offer named
	Protocol       Kind = "protocol"        // the peer broke the protocol
	ConnectionLost Kind = "connection_lost" // the stream was cut
	NotFerry       Kind = "not_ferry"       // what answered is not a Ferry device
	Unreachable    Kind = "unreachable"     // nothing answered at the peer's addresses
	AddressInUse   Kind = "address_in_use"  // the port to listen on is taken
	Permission     Kind = "permission_denied"
	FileMissing    Kind = "file_missing" // a file or folder vanished after it was chosen
	Internal       Kind = "internal"     // a bug in Ferry
	TrustFile      Kind = "trust_file"   // the trust file cannot be read
	HistoryFile    Kind = "history_file" // the history file cannot be read
	NoSuchDevice   Kind = "no_such_device"
	Ambiguous      Kind = "ambiguous" // a name or fingerprint matches several devices
	ClipboardTool  Kind = "clipboard_tool"
	ClipboardEmpty Kind = "clipboard_empty"
	Browse         Kind = "browse" // looking for devices on the network failed

	// Kinds of a command line that cannot run, found before anything
	// crosses the network: only the CLI makes these (with New) and
	// words them; they are here so that there is one list.
	Usage          Kind = "usage"
	BadCode        Kind = "bad_code"         // a code of the wrong form
	DirNotWritable Kind = "dir_not_writable" // the destination cannot be written

	// Failure is every error that carries no kind.
	Failure Kind = "failure"
)

var all = []Kind{WrongCode, CodeRetired, CodesHeld, CodesStopped, NotPaired,
	KeyChanged, Busy, Declined, Cancelled, Verify, Damaged, Incompatible,
	NoSpace, Timeout, SourceChanged, RefusedPath, Protocol, ConnectionLost,
	NotFerry, Unreachable, AddressInUse, Permission, FileMissing, Internal,
	TrustFile, HistoryFile, NoSuchDevice, Ambiguous, ClipboardTool,
	ClipboardEmpty, Browse, Usage, BadCode, DirNotWritable, Failure}

// rank is each kind's place in all: the lower, the more specific.
var rank = func() map[Kind]int {
	m := make(map[Kind]int, len(all))
	for i, k := range all {
		m[k] = i
	}
	return m
}()

// All lists every kind in Of's order, Failure last: what a front end
// must word.
func All() []Kind { return append([]Kind(nil), all...) }

// New returns a sentinel error of kind k with the text text.
func New(k Kind, text string) error { return &kindError{kind: k, text: text} }

// Wrap returns err with kind k: its text and its chain are err's. A nil
// err stays nil.
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{kind: k, err: err}
}

// Of names err's kind: of the kinds that err and the errors it wraps
// carry, the first in All's order; else Failure. A nil error has no
// kind ("").
func Of(err error) Kind {
	if err == nil {
		return ""
	}
	best := Failure
	better := func(k Kind) {
		if r, ok := rank[k]; ok && r < rank[best] {
			best = k
		}
	}
	if errors.Is(err, context.Canceled) {
		better(Cancelled)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		better(Timeout)
	}
	if errors.Is(err, fs.ErrPermission) {
		better(Permission)
	}
	if errors.Is(err, fs.ErrNotExist) {
		better(FileMissing)
	}
	walk(err, func(e error) {
		if k, ok := e.(interface{ Kind() Kind }); ok {
			better(k.Kind())
		}
	})
	return best
}

// walk calls f on err and on every error it wraps, depth first.
func walk(err error, f func(error)) {
	for err != nil {
		f(err)
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e, f)
			}
			return
		default:
			return
		}
	}
}

type kindError struct {
	kind Kind
	text string
}

func (e *kindError) Error() string { return e.text }
func (e *kindError) Kind() Kind    { return e.kind }

type wrapped struct {
	kind Kind
	err  error
}

func (e *wrapped) Error() string { return e.err.Error() }
func (e *wrapped) Unwrap() error { return e.err }
func (e *wrapped) Kind() Kind    { return e.kind }
