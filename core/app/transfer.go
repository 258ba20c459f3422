package app

import (
	"context"
	"errors"
	"sync"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/transfer"
)

// Handler is told a transfer's events, in order, one at a time, on a
// goroutine of the Node's: it must not block for long (the CLI prints,
// an app hands them to its UI thread). t is the transfer the event
// belongs to; a receiver's events between transfers (a code changed
// while none waits) come with nil. A Handler may call the transfer's
// methods (Accept, Decline, Cancel): the events they cause follow once
// it returns.
type Handler func(t *Transfer, ev event.Event)

// Transfer is one transfer, sent or received: its events go to the
// Handler it was started with and end with exactly one event.Done or
// event.Error; Wait returns its Result.
type Transfer struct {
	id     int64
	end    string          // event.Sender or event.Receiver
	ctx    context.Context // cancelled when the transfer ends, or by Cancel
	cancel context.CancelCauseFunc
	done   chan struct{}
	em     *emitter // shared with the Receiver, or the SendMany

	// receiving only: its Receiver and record (none in the page's
	// js/wasm build, nodisk_js.go; the record is guarded by mu)
	receiving
	session int // a receiving transfer's engine session, once its sender came (under mu)
	// SendMany only: the place of its receiver in ManyConfig.To
	index int

	mu       sync.Mutex
	ended    bool
	conn     *event.Connected
	offer    *event.Offer
	declined string // why this end declined; "" if it did not
	answered bool   // a received transfer's offer was answered
	texts    []string
	textsCut bool
	saved    []string
	res      Result
}

// Result is how a transfer ended.
type Result struct {
	// Err is nil when every entry was confirmed. A transfer that this end
	// declined ends with an error wrapping ErrDeclined (Declined
	// says why); one whose context was cancelled has Cancelled set.
	Err       error
	Summary   event.Summary
	Cancelled bool
	// Peer is the other device as the handshake proved it (zero when no
	// peer connected); Paired says pinned keys, not a code, authenticated
	// it; WrongCodes is Connected's count (receiver, by code).
	Peer       stores.Device
	PinnedName string // the name the peer's key is pinned under (paired)
	Addr       string
	Paired     bool
	WrongCodes int
	Declined   string
	// Texts are the texts received, kept for the clipboard when the
	// receiver asked for it (ReceiveConfig.KeepTexts), at most
	// MaxTextBytes in all; TextsCut says some were left out.
	Texts    []string
	TextsCut bool
	// ReadAgain (SendMany) is how many bytes were read from disk for
	// this receiver alone: it fell behind the shared window, or accepted
	// after the others were past a file. 0 means every byte it was sent
	// came from a read shared with the others.
	ReadAgain int64
}

// ID is the transfer's number, unique in its Node, from 1.
func (t *Transfer) ID() int64 { return t.id }

// Cancel ends the transfer; the peer is told why (cause, or "cancelled"),
// and its Result has Cancelled set. A transfer of ReceiveMany ends
// alone, the others running on: while its offer waits it is declined,
// with cause as the reason; otherwise its engine session is cancelled
// (receive.Receiver.CancelSession), its partial files kept for a
// resume. Receive's transfer is cancelled, its waiting offer too, and
// cancelled before its sender came it ends the wait.
func (t *Transfer) Cancel(cause error) {
	if cause == nil {
		cause = transfer.ErrCancelled
	}
	if t.sessionID() == 0 {
		t.cancel(cause)
		return
	}
	t.cancelSession(cause)
}

// sessionID is the engine session of a received transfer, 0 before its
// sender came (and on a sender).
func (t *Transfer) sessionID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session
}

// Context is done when the transfer has ended (or was cancelled): a
// question about it is asked under it.
func (t *Transfer) Context() context.Context { return t.ctx }

// Done is closed when the transfer has ended and its last event is out.
func (t *Transfer) Done() <-chan struct{} { return t.done }

// Wait waits for the end of the transfer and returns how it ended.
func (t *Transfer) Wait() Result {
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.res
}

// errTransferOver cancels a transfer's context once it has ended.
var errTransferOver = errors.New("transfer over")

func (n *Node) newTransfer(parent context.Context, end string, em *emitter) *Transfer {
	ctx, cancel := context.WithCancelCause(parent)
	return &Transfer{id: n.nextID.Add(1), end: end, em: em, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

func (t *Transfer) connected() *event.Connected {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conn
}

// emit hands ev to the handler, in order; nothing after the last event.
func (t *Transfer) emit(ev event.Event) { t.em.emit(t, ev) }

// over says whether the transfer's last event is out.
func (t *Transfer) over() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

// finish emits the last event (Done or Error) and releases Wait.
func (t *Transfer) finish(res Result, diag bool) {
	var last event.Event
	if res.Err == nil {
		last = event.NewDone(res.Summary, t.end, diag)
	} else {
		last = event.Error{Kind: errorKind(res.Err), Message: res.Err.Error(), Err: res.Err}
	}
	t.emit(last)
	t.em.flush()
	t.mu.Lock()
	t.ended, t.res = true, res
	t.mu.Unlock()
	t.cancel(errTransferOver)
	close(t.done)
}

// errorKind is the stable kind of err, as event.Error and the history
// carry it.
func errorKind(err error) string { return string(errkind.Of(err)) }
