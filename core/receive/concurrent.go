package receive

// This file holds the receiver's one loop (serve: Serve is it stopped
// after one session, ServeMany it unstopped), the places sessions take
// (ReceiverConfig.MaxConcurrent, 1 by default), the questions open to the
// person, and what sessions writing into one
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
	"github.com/ferry-project/ferry/core/transfer"
)

// MaxConcurrentLimit is the most sessions ReceiverConfig.MaxConcurrent
// may ask for. Each session costs its secure stream's buffers, one chunk
// buffer and a hash state (about 2 MiB with the goroutines' stacks), and
// a share of the disk: four keep a receiver well inside its memory
// budget and still give each sender a useful share of a disk that
// several senders fill at once.
const MaxConcurrentLimit = 4

// Serve is ServeMany told to stop after its first session: it accepts
// connections until one transfer completes, fails or is declined, and
// returns its outcome, its Error event already emitted. Handshakes run
// concurrently, each bounded by core/secure's handshake timeout and the
// limits on pending connections (see accept.go); one that fails is
// closed and Serve keeps listening. A wrong code counts against the
// current code; after maxAttempts wrong codes a new one is picked and
// CodeChanged emitted. Every wrong code also counts against the
// receiver's guess budget (core/guess): past its free guesses, codes are
// held back for a while (CodesHeld), then not checked at all
// (CodesStopped) until NewCode. A code that the receiver picked is used
// up by the first handshake that proves it: a new one is picked at once
// (CodeChanged, reason CodeUsed), so that one code lets in one sender. A
// sender refused in paired mode (no pin for it here, or its pin for this
// device stale) is reported with Refused. The first connection through
// the handshake becomes the transfer; while it runs, every other
// connection is refused as busy (the sender gets secure.ErrBusy),
// whatever MaxConcurrent says; with MaxConcurrent above 1 its session
// takes one of the places ServeConn's sessions take too. Serve returns
// only after every goroutine it started has ended; handshakes still
// pending then are closed.
func (r *Receiver) Serve(ctx context.Context) (sum event.Summary, err error) {
	defer r.failed(&err)
	return r.serve(ctx, true)
}

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
	defer r.failed(&err)
	_, err = r.serve(ctx, false)
	return err
}

// serve is the receiver's one loop, Serve's and ServeMany's: it accepts
// connections and runs each that passes its handshake as a session of
// its own, while fewer than the receiver's limit run. Told once, it
// starts one session only, refuses every later connection as busy, and
// returns that session's outcome when it ends (a sessionFailed error
// when it failed); until then it alone decides when serve ends (a
// cancelled ctx or Close end it, and so its outcome). Otherwise it
// serves until ctx ends or Close, and returns why it stopped.
func (r *Receiver) serve(ctx context.Context, once bool) (event.Summary, error) {
	if r.ln == nil {
		return event.Summary{}, errors.New("receiver has no listener: it serves only ServeConn")
	}
	if !r.claim() {
		return event.Summary{}, errors.New("receiver is already serving")
	}
	defer r.unclaim()
	r.tellStopped(r.ev)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopLife := context.AfterFunc(r.life, func() { cancel(context.Cause(r.life)) })
	defer stopLife()
	var sessions sync.WaitGroup
	defer sessions.Wait() // after stop below, which cancels ctx: the sessions end
	sl := &sessionSlots{r: r, left: -1}
	if once {
		sl.left = 1
	}
	a := r.start(ctx, r.ev, sl, r.slots)
	defer a.stop(cancel)
	type outcome struct {
		sum event.Summary
		err error
	}
	ended := make(chan outcome, 1)
	won, failed, done := a.won, a.failed, ctx.Done()
	for {
		select {
		case w := <-won:
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				defer r.releaseSlot()
				sum, err := r.session(ctx, w)
				if once {
					ended <- outcome{sum, err}
				}
			}()
			if once {
				// The session's outcome is serve's: a cancel or a
				// failing listener now ends it, and it tells.
				won, failed, done = nil, nil, nil
			}
		case o := <-ended:
			return o.sum, o.err
		case err := <-failed:
			if r.life.Err() != nil { // Close closed the listener
				return event.Summary{}, transfer.CancelError(r.life)
			}
			return event.Summary{}, fmt.Errorf("accepting a connection: %w", err)
		case <-done:
			return event.Summary{}, transfer.CancelError(ctx)
		}
	}
}

// claim marks the receiver as serving (a loop runs), unless it already is.
func (r *Receiver) claim() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.serving {
		return false
	}
	r.serving = true
	return true
}

func (r *Receiver) unclaim() { r.mu.Lock(); r.serving = false; r.mu.Unlock() }

// sessionSlots is serve's: a session starts while the receiver runs
// fewer than its limit, and, when left is not negative, while this loop
// has started fewer than left more (Serve's loop starts one). Its
// methods are called with the acceptor's lock held.
type sessionSlots struct {
	r    *Receiver
	left int
}

func (s *sessionSlots) full() (int, bool) {
	if s.left == 0 {
		return s.r.running(), true
	}
	return s.r.slotsFull()
}

func (s *sessionSlots) take() bool {
	if s.left == 0 || !s.r.takeSlot() {
		return false
	}
	if s.left > 0 {
		s.left--
	}
	return true
}

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

// takeConnSlot starts ServeConn's session in one of the receiver's
// places, or says why it cannot, with how many sessions the sender is
// told run. With a limit of 1 the receiver's one place is its loop's,
// from the moment the loop serves (a loop that waits for a sender holds
// it too), and a ServeConn holds the receiver as a loop does; above 1,
// ServeConn's session is one among the loop's.
func (r *Receiver) takeConnSlot() (running int, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.slots == 1 && r.serving:
		return 1, "receiver is already serving"
	case r.active >= r.slots:
		return r.active, fmt.Sprintf("receiver is busy with %d transfers", r.active)
	}
	r.active++
	r.serving = r.serving || r.slots == 1
	return 0, ""
}

func (r *Receiver) releaseConnSlot() {
	r.mu.Lock()
	r.active--
	if r.slots == 1 {
		r.serving = false
	}
	r.mu.Unlock()
}

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

// answer gives q its answer, unless it has one already: the first
// counts.
func (q question) answer(yes bool) {
	select {
	case q.ans <- yes:
	default:
	}
}

// ask opens session id's question and returns the channel its answer
// comes on; the session closes it with answered.
func (r *Receiver) ask(id int) <-chan bool {
	q := question{id: id, ans: make(chan bool, 1)}
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
			q.answer(yes)
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
	// session writes them until it releases them. The session claims
	// them and its placer releases them: mu orders the two.
	mu    sync.Mutex
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
