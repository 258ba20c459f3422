package mobile

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

// Error kinds, the "kind" of an "error" event: the stable names an app
// branches on (to offer a retry, ask for the code again). The event's
// "title", "hint" and "message" are for people and may change between
// versions; the kind will not. They are core's kinds (core/errkind's
// Of), so the app, the CLI's --json events and the history all say the
// same word for the same error; the words for each are core's too
// (failureOf), not these comments, which only say what a kind is.
const (
	KindWrongCode      = string(errkind.WrongCode)      // the code typed on the sender was not the receiver's
	KindCodeRetired    = string(errkind.CodeRetired)    // too many wrong codes: the receiver shows a new one
	KindCodesHeld      = string(errkind.CodesHeld)      // the receiver holds codes back after too many wrong ones: wait, or ask for a new code
	KindCodesStopped   = string(errkind.CodesStopped)   // the receiver takes no more codes: someone may be guessing
	KindNotPaired      = string(errkind.NotPaired)      // one end no longer trusts the other: pair again with a code
	KindKeyChanged     = string(errkind.KeyChanged)     // the peer's key is not the one pinned for it
	KindBusy           = string(errkind.Busy)           // the receiver is in another transfer: try again later
	KindDeclined       = string(errkind.Declined)       // the receiver said no
	KindCancelled      = string(errkind.Cancelled)      // this side or the peer cancelled
	KindVerify         = string(errkind.Verify)         // a file's hash did not match: nothing was kept
	KindDamaged        = string(errkind.Damaged)        // data was damaged or altered on the way: nothing damaged was kept
	KindRefusedPath    = string(errkind.RefusedPath)    // the offer named a path the receiver will not write
	KindNoSpace        = string(errkind.NoSpace)        // the receiver lacks room for the offer
	KindTimeout        = string(errkind.Timeout)        // the peer went silent
	KindSourceChanged  = string(errkind.SourceChanged)  // a file changed on the sender's disk mid-transfer
	KindIncompatible   = string(errkind.Incompatible)   // "incompatible_version": the peer speaks another protocol version
	KindConnectionLost = string(errkind.ConnectionLost) // the network went away, or the stream was cut
	KindProtocol       = string(errkind.Protocol)       // the peer broke the protocol
	KindNotFerry       = string(errkind.NotFerry)       // whatever answered is not a Ferry receiver
	KindUnreachable    = string(errkind.Unreachable)    // no address of the peer answered
	KindPermission     = string(errkind.Permission)     // a file could not be read or written for want of permission
	KindFileMissing    = string(errkind.FileMissing)    // a file was moved or deleted after it was chosen
	KindBrowse         = string(errkind.Browse)         // mDNS browsing failed (transfer ID 0)
	KindInternal       = string(errkind.Internal)       // a bug in Ferry: a recovered panic, with its stack
	KindOther          = string(errkind.Failure)        // "failure": anything else; read the message
)

// Errors of this package. Those with a kind of their own carry it
// (errkind.New); the rest are KindOther.
var (
	errUnreachable = errkind.New(errkind.Unreachable, "peer unreachable")
	errPanic       = errkind.New(errkind.Internal, "internal error")
	errBrowse      = errkind.New(errkind.Browse, "browsing failed")
	errClosed      = errors.New("node closed")
	errBusy        = errors.New("too many transfers at once")
)

// kindOf names err's kind: core's, which reads this package's errors too.
func kindOf(err error) string { return string(errkind.Of(err)) }

// failureOf is err as the app is told it: an "error" event, with core's
// words for its kind (errkind.WordsOf): "title", what happened, and
// "hint", what to do, both lowercase clauses an app shows as sentences,
// adding its own buttons after them. So an app words no kind itself:
// it branches on the kind only where it offers something (ask for the
// code again). "message" is the error's own text.
func failureOf(err error) errorEvent {
	k := errkind.Of(err)
	w := errkind.WordsOf(k)
	return errorEvent{Error: event.Error{Kind: string(k), Message: err.Error(), Hint: w.Hint, Err: err}, Title: w.Message}
}

// errorEvent is mobile's "error" event: core/app/event's, and its kind's
// message as a title.
type errorEvent struct {
	event.Error
	Title string `json:"title"`
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
