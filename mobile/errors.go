package mobile

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// Failure kinds: the stable names an app branches on (to word a message,
// offer a retry, ask for the code again). Failure.Message is for people
// and may change between versions; the kind will not.
const (
	KindWrongCode      = "wrong_code"      // the code typed on the sender was not the receiver's
	KindCodeRetired    = "code_retired"    // too many wrong codes: the receiver shows a new one
	KindCodesHeld      = "codes_held"      // the receiver holds codes back after too many wrong ones: wait, or ask for a new code
	KindDeclined       = "declined"        // the receiver said no
	KindCancelled      = "cancelled"       // this side or the peer cancelled
	KindVerify         = "verify"          // a file's hash did not match: nothing was kept
	KindRefusedPath    = "refused_path"    // the offer named a path the receiver will not write
	KindNoSpace        = "no_space"        // the receiver lacks room for the offer
	KindTimeout        = "timeout"         // the peer went silent
	KindSourceChanged  = "source_changed"  // a file changed on the sender's disk mid-transfer
	KindIncompatible   = "incompatible"    // the peer speaks another protocol version
	KindConnectionLost = "connection_lost" // the network went away, or the stream was cut
	KindProtocol       = "protocol"        // the peer broke the protocol
	KindNotFerry       = "not_ferry"       // whatever answered is not a Ferry receiver
	KindUnreachable    = "unreachable"     // no address of the peer answered
	KindBrowse         = "browse"          // mDNS browsing failed (transfer ID 0)
	KindInternal       = "internal"        // a bug in Ferry: a recovered panic, with its stack
	KindOther          = "other"           // anything else; read the message
)

// kinds maps sentinel errors to kinds, in the order they are tried: the
// first that errors.Is finds wins, so the specific comes before the
// general (a wrong code also closes the connection).
var kinds = []struct {
	err  error
	kind string
}{
	{secure.ErrWrongCode, KindWrongCode},
	{secure.ErrCodeRetired, KindCodeRetired},
	{secure.ErrCodesHeld, KindCodesHeld},
	{transfer.ErrDeclined, KindDeclined},
	{transfer.ErrCancelled, KindCancelled},
	{transfer.ErrVerify, KindVerify},
	{transfer.ErrRefusedPath, KindRefusedPath},
	{transfer.ErrNoSpace, KindNoSpace},
	{transfer.ErrTimeout, KindTimeout},
	{secure.ErrHandshakeTimeout, KindTimeout},
	{transfer.ErrSourceChanged, KindSourceChanged},
	{secure.ErrIncompatibleVersion, KindIncompatible},
	{secure.ErrNotFerry, KindNotFerry},
	{transfer.ErrProtocol, KindProtocol},
	{secure.ErrTruncated, KindConnectionLost},
	{secure.ErrConnectionLost, KindConnectionLost},
	{errUnreachable, KindUnreachable},
	{errBrowse, KindBrowse},
	{errPanic, KindInternal},
}

// Errors of this package that the kinds table knows.
var (
	errUnreachable = errors.New("peer unreachable")
	errPanic       = errors.New("internal error")
	errClosed      = errors.New("node closed")
	errBusy        = errors.New("too many transfers at once")
	errBrowse      = errors.New("browsing failed")
)

// kindOf names err's kind.
func kindOf(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return KindOther
}

// failureOf turns an error into what the app is told.
func failureOf(err error) *Failure {
	return &Failure{Kind: kindOf(err), Message: err.Error()}
}

// maxStack bounds the stack carried in a panic's message: enough to find
// the bug in a crash report, not enough to matter to memory.
const maxStack = 4096

// panicError turns a recovered value into an error wrapping errPanic,
// with the stack of the panicking goroutine.
func panicError(op string, v any) error {
	stack := debug.Stack()
	if len(stack) > maxStack {
		stack = stack[:maxStack]
	}
	return fmt.Errorf("%s: %w: %v\n%s", op, errPanic, v, stack)
}

// guard recovers a panic in an exported entry point and returns it as
// the entry point's error: a panic that crossed into Java or Objective-C
// would kill the app. Use as: defer guard("sending", &err).
func guard(op string, err *error) {
	if v := recover(); v != nil {
		*err = panicError(op, v)
	}
}

// quiet recovers a panic in an exported entry point that has no error to
// return it in: the caller gets the zero value, which beats a dead app.
// Use as: defer quiet().
func quiet() { _ = recover() }
