package transfer

// This file holds what lets one Receiver run several sessions at once
// (ReceiverConfig.MaxConcurrent, ServeMany): the slots sessions take, the
// questions open to the person, and what sessions writing into one
// folder share (shared): the partial files in use, the bytes accepted
// transfers will still write, and the partial folder's life; and what
// each session holds of it (held).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
)

// MaxConcurrentLimit is the most sessions ReceiverConfig.MaxConcurrent
// may ask for. Each session costs its secure stream's buffers, one chunk
// buffer and a hash state (about 2 MiB with the goroutines' stacks), and
// a share of the disk: four keep a receiver well inside its memory
// budget and still give each sender a useful share of a disk that
// several senders fill at once.
const MaxConcurrentLimit = 4

// ServeMany accepts connections and runs up to MaxConcurrent sessions at
// once, each as Serve runs its one: its own handshake (code or pins,
// under the same code, attempt limit and guess budget), offer, question
// (Offer, answered with AcceptSession or DeclineSession), progress and
// outcome. It serves until ctx ends or Close, and returns only after
// every session it started has ended (a cancelled ctx ends them too,
// the senders told why); its error says why it stopped, wrapping
// ErrCancelled when ctx ended. A session's outcome is its Done or
// Error event, told apart from the others' by its Session id (see
// SessionOf): ServeMany returns none of them. CancelSession ends one
// session alone.
//
// Beyond MaxConcurrent sessions a connection is refused as busy (the
// sender gets secure.ErrBusy). A code the receiver picked is replaced
// (CodeUsed) after each session that used it ends, without cutting the
// others; a handshake that began under it still completes with it.
// With MaxConcurrent 0 or 1 it serves one session after another, as
// calling Serve in a loop would.
func (r *Receiver) ServeMany(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			err = withKind(err)
			r.ev.emit(event.Error{Err: err})
		}
	}()
	if r.ln == nil {
		return errors.New("receiver has no listener: it serves only ServeConn")
	}
	if !r.claim() {
		return errors.New("receiver is already serving")
	}
	defer r.unclaim()
	r.tellStopped(r.ev)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopLife := context.AfterFunc(r.life, func() { cancel(context.Cause(r.life)) })
	defer stopLife()
	var sessions sync.WaitGroup
	defer sessions.Wait() // after stop below, which cancels ctx: the sessions end
	a := r.start(ctx, r.ev, receiverSlots{r}, r.slots)
	defer a.stop(cancel)
	for {
		select {
		case w := <-a.won:
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				defer r.releaseSlot()
				r.session(ctx, w)
			}()
		case err := <-a.failed:
			if r.life.Err() != nil { // Close closed the listener
				return cancelError(r.life)
			}
			return fmt.Errorf("accepting a connection: %w", err)
		case <-ctx.Done():
			return cancelError(ctx)
		}
	}
}

// receiverSlots is ServeMany's: a session starts while the receiver
// runs fewer than MaxConcurrent.
type receiverSlots struct{ r *Receiver }

func (s receiverSlots) full() (int, bool) { return s.r.slotsFull() }
func (s receiverSlots) take() bool        { return s.r.takeSlot() }

// takeSlot starts a session if fewer than MaxConcurrent run.
func (r *Receiver) takeSlot() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active >= r.slots {
		return false
	}
	r.active++
	return true
}

func (r *Receiver) releaseSlot() { r.mu.Lock(); r.active--; r.mu.Unlock() }

// running is how many sessions run.
func (r *Receiver) running() int { r.mu.Lock(); defer r.mu.Unlock(); return r.active }

// slotsFull reports how many sessions run and whether that is all that may.
func (r *Receiver) slotsFull() (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active, r.active >= r.slots
}

// concurrent reports whether this receiver may run several sessions.
func (r *Receiver) concurrent() bool { return r.slots > 1 }

// refuseBusy refuses nc before its handshake: running sessions are in
// progress, which the sender is told (secure.BusyError).
func (r *Receiver) refuseBusy(ctx context.Context, nc net.Conn, running int) {
	secure.RefuseBusyWith(ctx, nc, running)
}

// refuseBusyConn refuses a connection whose handshake completed when no
// session could start.
func (r *Receiver) refuseBusyConn(sc *secure.Conn, running int) {
	sc.RefuseBusyWith(running)
}

// question is an offer waiting for the person's answer.
type question struct {
	id  int
	ans chan bool // buffered: the first answer counts
}

// ask opens session id's question and returns the channel its answer
// comes on; the session closes it with answered. A receiver that runs
// one session at a time answers on r.decide, as it always did, so that
// Accept and Decline keep their meaning exactly.
func (r *Receiver) ask(id int) <-chan bool {
	q := question{id: id, ans: r.decide}
	if r.concurrent() {
		q.ans = make(chan bool, 1)
	}
	r.mu.Lock()
	r.questions = append(r.questions, q)
	r.mu.Unlock()
	return q.ans
}

// answered closes session id's question.
func (r *Receiver) answered(id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, q := range r.questions {
		if q.id == id {
			r.questions = append(r.questions[:i], r.questions[i+1:]...)
			return
		}
	}
}

// AcceptSession answers session id's pending offer (its Offer event)
// with yes. It fails when that session has no question open: answered
// already, ended, or never asked (a policy answered it).
func (r *Receiver) AcceptSession(id int) error { return r.answerSession(id, true) }

// DeclineSession answers session id's pending offer with no (see
// AcceptSession).
func (r *Receiver) DeclineSession(id int) error { return r.answerSession(id, false) }

func (r *Receiver) answerSession(id int, yes bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.questions {
		if q.id == id {
			select {
			case q.ans <- yes:
			default: // an answer is already waiting; the first one counts
			}
			return nil
		}
	}
	return fmt.Errorf("session %d has no question open", id)
}

// shared is what the sessions writing into one folder share: which
// partial files are being written (a sender that sends the same file
// twice at once must not write one partial file from two sessions),
// what every accepted transfer will still write (for the free-space
// check), and how many sessions use the partial folder (the last one
// out removes it when empty).
type shared struct {
	mu      sync.Mutex
	parts   map[string]bool            // partial files a session writes
	pending map[*atomic.Int64]struct{} // each accepted session's bytes still to write
	users   int                        // sessions with the folder open
}

func newShared() *shared {
	return &shared{parts: make(map[string]bool), pending: make(map[*atomic.Int64]struct{})}
}

// claimPart marks partial file p as written by one session; false when
// another session writes it.
func (sh *shared) claimPart(p string) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.parts[p] {
		return false
	}
	sh.parts[p] = true
	return true
}

func (sh *shared) releasePart(p string) {
	sh.mu.Lock()
	delete(sh.parts, p)
	sh.mu.Unlock()
}

// othersPending is what the accepted sessions other than left will still
// write.
func (sh *shared) othersPending(left *atomic.Int64) int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var n int64
	for p := range sh.pending {
		if p != left {
			n += max(p.Load(), 0)
		}
	}
	return n
}

// reserve counts a session's bytes still to write (left) against the
// free space, if they fit beside what the other accepted sessions will
// still write: fits checks, under the lock, so two sessions accepted at
// once cannot both take the last free bytes.
func (sh *shared) reserve(left *atomic.Int64, fits func(others int64) error) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var others int64
	for p := range sh.pending {
		others += max(p.Load(), 0)
	}
	if err := fits(others); err != nil {
		return err
	}
	sh.pending[left] = struct{}{}
	return nil
}

func (sh *shared) unreserve(left *atomic.Int64) {
	sh.mu.Lock()
	delete(sh.pending, left)
	sh.mu.Unlock()
}

// open and close count the sessions that use the partial folder; close
// reports whether the caller was the last one, which may remove it.
func (sh *shared) open() { sh.mu.Lock(); sh.users++; sh.mu.Unlock() }

func (sh *shared) close(last func()) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.users--
	if sh.users == 0 {
		last()
	}
}

// held is what one session holds of its Receiver's shared: what it will
// still write, and the partial files it writes.
type held struct {
	// left is what this accepted transfer will still write into Dir,
	// counted by the other sessions' free-space checks; reserved once
	// it was counted.
	left     atomic.Int64
	reserved bool
	// parts are the partial files this session claimed: no other
	// session writes them until it releases them.
	parts map[string]bool
}

// release gives back all that h holds of sh, when its session ends.
func (h *held) release(sh *shared) {
	if h.reserved {
		sh.unreserve(&h.left)
	}
	for p := range h.parts {
		sh.releasePart(p)
	}
}

// openSession gives a session its id and keeps cancel, which ends it,
// for CancelSession; closeSession forgets it when the session ends.
func (r *Receiver) openSession(cancel context.CancelCauseFunc) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastID++
	if r.cancels == nil {
		r.cancels = make(map[int]context.CancelCauseFunc)
	}
	r.cancels[r.lastID] = cancel
	return r.lastID
}

func (r *Receiver) closeSession(id int) {
	r.mu.Lock()
	delete(r.cancels, id)
	r.mu.Unlock()
}

// CancelSession ends session id alone, as cancelling its context would
// end a transfer served by Serve: the sender is told cause as the reason
// ("cancelled" when nil), the session ends with its own Error event
// wrapping ErrCancelled (and cause), and the partial files it wrote stay
// for a resume, as after a cut. The other sessions run on. A session
// whose offer waits is cancelled too, not declined. It fails when no
// session id runs: never started, or ended already.
func (r *Receiver) CancelSession(id int, cause error) error {
	r.mu.Lock()
	cancel := r.cancels[id]
	r.mu.Unlock()
	if cancel == nil {
		return fmt.Errorf("session %d is not running", id)
	}
	cancel(cause) // nil: context.Canceled, told as "cancelled"
	return nil
}
