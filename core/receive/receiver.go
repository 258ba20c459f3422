package receive

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// Receiver takes one transfer at a time, or up to
// ReceiverConfig.MaxConcurrent at once with ServeMany. Its port is fixed from
// NewReceiver on, and so is its code until it changes (CodeChanged):
// after three wrong guesses, as soon as a handshake proves a code that
// the receiver picked, or when a person asks (NewCode). A front end can
// show both, and advertise them, before Serve runs.
type Receiver struct {
	cfg     ReceiverConfig
	ln      net.Listener
	ev      *transfer.Emitter // shared by every Serve and NewCode, so events never overlap
	slots   int               // sessions that may run at once: MaxConcurrent, at least 1
	shared  *shared           // what sessions writing into Dir share
	life    context.Context
	kill    context.CancelCauseFunc
	mu      sync.Mutex
	codes   codeState // under mu
	serving bool      // a loop (Serve, ServeMany) runs, or, with a limit of 1, a ServeConn
	active  int       // sessions running
	lastID  int       // the id of the last session started
	// cancels end the running sessions one by one, by id (CancelSession).
	cancels map[int]context.CancelCauseFunc
	// names are the names and fingerprints the senders in progress
	// claim, by session id (claimName).
	names map[int]claimed
	// questions are the offers waiting for the person, oldest first.
	questions []question
	// budget bounds the wrong codes checked by the whole device (see
	// core/guess), across Receivers.
	budget *guess.Budget

	refusals refusalLimit // Refused events, across Serve calls
}

// codeState is a Receiver's code and the wrong guesses it counted: what
// its handshakes check guesses against, and what Connected, CodeChanged
// and CodesStopped report.
type codeState struct {
	current string
	gen     int // how many codes were retired
	wrong   int // wrong guesses checked against current
	// usedGen is the generation of the last code that a handshake used
	// up by proving it (useCode), -1 before any: a guess against it from
	// a handshake that began under it is not checked (see usedAnswer).
	usedGen int
	// wrongSince counts the wrong codes this Receiver checked since the
	// last transfer made with a code, for Connected.WrongCodes;
	// toldStopped is set once CodesStopped was emitted for a budget
	// given spent.
	wrongSince  int
	toldStopped bool
	// toldDigits is the length of the code CodeLonger last told of.
	toldDigits int
}

// retire replaces the current code with a new one of digits digits,
// whose wrong guesses start from none, and returns it.
func (c *codeState) retire(digits int) string {
	c.current, c.wrong, c.gen = newCode(c.current, digits), 0, c.gen+1
	return c.current
}

var errReceiverClosed = errors.New("receiver closed")

// defaultMaxAttempts is how many wrong codes retire the current one
// (tests may set fewer: testhooks.Hooks.Attempts).
const defaultMaxAttempts = 3

// NewReceiver checks the destination, binds the listener and picks a
// random 6-digit code unless cfg.Code is set.
//
// With cfg.Sink set there is no destination to check; with cfg.Listener
// set it is used instead of a bound port, and with cfg.NoListen nothing
// is bound at all (only ServeConn serves).
func NewReceiver(cfg ReceiverConfig) (*Receiver, error) {
	r, err := newReceiver(cfg)
	return r, transfer.WithKind(err)
}

func newReceiver(cfg ReceiverConfig) (*Receiver, error) {
	if cfg.Sink == nil {
		if err := checkDir(cfg.Dir); err != nil {
			return nil, err
		}
	}
	if cfg.Identity == nil {
		return nil, errors.New("receiver needs an identity")
	}
	if cfg.PairedOnly && cfg.Paired == nil {
		return nil, errors.New("a receiver that takes paired senders only needs Paired")
	}
	if cfg.MaxConcurrent < 0 || cfg.MaxConcurrent > MaxConcurrentLimit {
		return nil, fmt.Errorf("a receiver takes 1 to %d transfers at once, not %d", MaxConcurrentLimit, cfg.MaxConcurrent)
	}
	if cfg.Sink != nil && cfg.MaxConcurrent > 1 {
		// A Sink is told of one transfer's entries, then its End: two
		// transfers at once would interleave in it.
		return nil, errors.New("a receiver into a Sink takes one transfer at a time")
	}
	budget := cfg.Budget
	if budget == nil {
		budget = guess.NewBudget(guess.Config{})
	}
	code := cfg.Code
	if code == "" {
		code = newCode("", budget.Digits())
	}
	ln, err := listen(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = transfer.OrDefault(cfg.Timeout, transfer.DefaultTimeout)
	life, kill := context.WithCancelCause(context.Background())
	return &Receiver{cfg: cfg, ln: ln, ev: &transfer.Emitter{F: cfg.OnEvent},
		codes: codeState{current: code, usedGen: -1}, slots: max(cfg.MaxConcurrent, 1), shared: newShared(),
		life: life, kill: kill, budget: budget}, nil
}

func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("checking destination: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("destination %s is not a folder", dir)
	}
	return nil
}

// listen returns what Serve accepts from: cfg.Listener, a port bound on
// cfg.Listen, or nil with NoListen.
func listen(cfg ReceiverConfig) (net.Listener, error) {
	switch {
	case cfg.Listener != nil && cfg.NoListen:
		return nil, errors.New("receiver given both a listener and NoListen")
	case cfg.Listener != nil:
		if _, ok := cfg.Listener.(deadliner); !ok {
			return nil, errors.New("the receiver's listener has no SetDeadline, with which Serve ends its Accept (core/web's Mux has one)")
		}
		return cfg.Listener, nil
	case cfg.NoListen:
		return nil, nil
	}
	addr := cfg.Listen
	if addr == "" {
		addr = ":0"
	}
	ln, err := transfer.Listen(addr)
	if err != nil {
		return nil, err
	}
	return ln, nil
}

// newCode picks a code of digits digits other than old: 6 (about 20
// bits) on a device where few wrong codes were tried, 8 or 10 once more
// were (core/guess's Digits).
func newCode(old string, digits int) string {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	for {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			// crypto/rand's Reader never fails since Go 1.24: it crashes
			// the program instead.
			panic("transfer: crypto/rand failed: " + err.Error())
		}
		if c := fmt.Sprintf("%0*d", digits, n.Int64()); c != old {
			return c
		}
	}
}

// Code returns the code a sender must type.
func (r *Receiver) Code() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.codes.current
}

// Port returns the TCP port the receiver listens on (0 when it listens
// on no TCP port).
func (r *Receiver) Port() int {
	if r.ln == nil {
		return 0
	}
	if a, ok := r.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// NewCode is a person asking for a new code: it retires the current one,
// starts the guess budget over (after CodesStopped, codes are checked
// again, by every Receiver that shares the budget), emits CodeChanged
// with reason CodeRenewed, and returns the new code. Call it from a
// person's action, never from the OnEvent handler (events are delivered
// one at a time, so it would wait on itself).
func (r *Receiver) NewCode() string {
	r.mu.Lock()
	r.budget.Reset()
	next := r.codes.retire(r.budget.Digits())
	r.codes.toldStopped = false
	longer := r.longer()
	r.mu.Unlock()
	r.ev.Emit(event.CodeChanged{Code: next, Reason: event.CodeRenewed})
	r.tellLonger(longer)
	return next
}

// Accept answers the oldest offer waiting for an answer with yes: the
// only one, with a limit of 1. A front end that shows several questions
// answers each with AcceptSession; Accept is AcceptSession on the oldest.
// With no offer waiting it does nothing.
func (r *Receiver) Accept() { r.answerOldest(true) }

// Decline answers the oldest offer waiting with no (see Accept).
func (r *Receiver) Decline() { r.answerOldest(false) }

func (r *Receiver) answerOldest(yes bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.questions) > 0 {
		r.questions[0].answer(yes)
	}
}

// Close stops listening and ends a transfer in progress (the sender is
// told "receiver closed").
func (r *Receiver) Close() error {
	r.kill(errReceiverClosed)
	if r.ln == nil {
		return nil
	}
	return r.ln.Close()
}

// session runs the transfer of a connection through the handshake, under
// an id of its own that stamps its events (SessionOf), and emits its
// Error event itself; the caller took a slot for it.
func (r *Receiver) session(ctx context.Context, w won) (event.Summary, error) {
	r.cfg.hooks.OnSecured(w.sc)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	id := r.openSession(cancel)
	defer r.closeSession(id)
	ev := r.ev.ForSession(id)
	s := &rsession{Link: transfer.NewLink(w.sc, "the sender", ev, w.timers, r.cfg.Timeout),
		cfg: &r.cfg, rcv: r, id: id, wrongCodes: w.wrongCodes}
	sum, err := s.run(ctx)
	if !s.Paired && err == nil {
		r.codeCompleted()
	}
	if err != nil {
		err = transfer.WithKind(err)
		ev.Emit(event.Error{Err: err})
		return event.Summary{}, sessionFailed{err}
	}
	return sum, nil
}

// sessionFailed is a session's error once its Error event was emitted,
// so that Serve does not emit another (noFailed unwraps it).
type sessionFailed struct{ error }

func (e sessionFailed) Unwrap() error { return e.error }

// noFailed is what Serve and ServeConn return for a session's outcome:
// the error itself, with its Error event already emitted.
func noFailed(err error) error {
	var sf sessionFailed
	if errors.As(err, &sf) {
		return sf.error
	}
	return err
}

// ServeConn runs one session on nc, a connection accepted or opened
// elsewhere (a browser page's WebSocket, wrapped as a net.Conn): the
// handshake, in which this end is the responder and checks the code,
// then the transfer, as Serve would run them for a connection it
// accepted. It returns the transfer's outcome, or the handshake's error
// (a wrong code, which counts against the code and the guess budget as
// any other, a paired sender refused, reported with Refused). It always
// closes nc. While a Serve or another ServeConn runs, nc is refused as
// busy (the sender gets secure.ErrBusy); a front end that takes such
// connections while Serve waits hands them to Serve instead, through
// ReceiverConfig.Listener. With MaxConcurrent above 1, ServeConn may
// run beside ServeMany, Serve and other ServeConns, its session taking
// one of the MaxConcurrent places, and is busy only when all are taken.
func (r *Receiver) ServeConn(ctx context.Context, nc net.Conn) (sum event.Summary, err error) {
	ev := r.ev
	defer r.failed(&err)
	if running, why := r.takeConnSlot(); why != "" {
		r.refuseBusy(ctx, nc, running)
		nc.Close()
		return event.Summary{}, errors.New(why)
	}
	defer r.releaseConnSlot()
	r.tellStopped(ev)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopLife := context.AfterFunc(r.life, func() { cancel(context.Cause(r.life)) })
	defer stopLife()
	w, err := r.handshake(ctx, ev, nc)
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return event.Summary{}, transfer.CancelError(ctx)
		}
		return event.Summary{}, fmt.Errorf("securing the connection from %s: %w", nc.RemoteAddr(), err)
	}
	return r.session(ctx, w)
}

// failed words a Serve's or ServeConn's error and emits Failed for it,
// unless a session did both already (sessionFailed).
func (r *Receiver) failed(err *error) {
	if *err == nil {
		return
	}
	if sf, ok := (*err).(sessionFailed); ok {
		*err = sf.error
		return
	}
	*err = transfer.WithKind(*err)
	r.ev.Emit(event.Error{Err: *err})
}

// handshake runs the responder's handshake on nc with the current code,
// its guesses checked under the receiver's lock and budget (attempt),
// and reports a paired sender's refusal. It does not close nc.
func (r *Receiver) handshake(ctx context.Context, ev *transfer.Emitter, nc net.Conn) (won, error) {
	timers := &diag.Timers{}
	try, guess := r.attempt(ev)
	// The guess that spends the budget leaves CodesStopped in try, said
	// once core/secure has sent this sender its rejection: a front end
	// ends its receiver on it, and a receiver that ended first would
	// close the connection before the sender reads why (its error would
	// be a cut stream, not a wrong code).
	defer func() {
		if try.stopped != nil {
			ev.Emit(*try.stopped)
		}
	}()
	pins := pinCheck{paired: r.cfg.Paired}
	sc := secure.Config{Identity: r.cfg.Identity, Code: try.code, Timers: timers, Guess: guess, Paired: pins.hook()}
	if r.cfg.PairedOnly {
		// No code: core/secure refuses a code-mode sender before
		// CPace, so no guess reaches the budget.
		sc.Code, sc.Guess = "", nil
	}
	conn, err := secure.Server(ctx, nc, sc)
	if err != nil {
		// A wrong code was counted by guess (and one held back by the
		// budget was not checked); a paired sender refused is
		// reported (Refused); anything else (a port scan, another
		// version, a stall) only costs the connection.
		r.reportRefusal(ev, nc.RemoteAddr().String(), &pins, err)
		return won{}, err
	}
	transfer.MarkProven(nc)
	return won{conn, timers, try.wrongCodes}, nil
}

// codeCompleted ends a transfer that a code authenticated and that
// completed: the wrong codes that Connected.WrongCodes counts start over.
// The code itself was used up as the handshake proved it (useCode).
func (r *Receiver) codeCompleted() {
	r.mu.Lock()
	r.codes.wrongSince = 0
	r.mu.Unlock()
}

// useCode is a handshake proving the current code: a code the receiver
// picked is used up at once and replaced, returned with true, so that
// whoever else saw it cannot send, beside this sender or after it. A
// code fixed in ReceiverConfig.Code is the person's choice (scripts,
// classrooms) and stays, until wrong guesses retire it: the codes after
// it are picked. Retiring it here, not when the transfer ends, is what
// lets a receiver of several senders take one sender per code. r.mu is
// held.
func (r *Receiver) useCode(digits int) (string, bool) {
	if r.cfg.Code != "" && r.codes.current == r.cfg.Code {
		return "", false
	}
	r.codes.usedGen = r.codes.gen
	return r.codes.retire(digits), true
}

// usedAnswer is the answer to a guess, unchecked, from a handshake that
// began under a code that another handshake used up since: Busy while
// the receiver has no place for another session (as a sender told busy
// before its handshake would be), otherwise Wrong: that code lets
// nobody else in. Like any guess against a retired code, it is not
// counted. r.mu is held.
func (r *Receiver) usedAnswer() secure.GuessAnswer {
	if r.active >= r.slots {
		return secure.Busy
	}
	return secure.Wrong
}

// guessTry is one code-mode handshake's view of the code: which one it
// uses, and, once its guess proved right, how many wrong codes came
// before it.
type guessTry struct {
	code       string
	gen        int
	wrongCodes int
	stopped    *event.CodesStopped // this guess spent the budget: said after the handshake
}

// attempt returns the code a new handshake uses and the Guess hook that
// checks its message 3. The hook holds r.mu across the check, and the
// budget holds its own lock, so that concurrent handshakes never check
// more than maxAttempts guesses against one code, nor more than the
// guess budget allows, even across Receivers that share it, and never
// let two senders in with one picked code: a guess for a code retired
// meanwhile (by wrong guesses, a person, or another handshake that
// proved it first) is refused unchecked (Retired), and so is one that
// the budget holds back (Held). A handshake whose guess was right is
// through: the code it proved being used up cuts nothing. Events are
// emitted after r.mu is released.
func (r *Receiver) attempt(ev *transfer.Emitter) (*guessTry, func(check func() bool) secure.GuessAnswer) {
	r.mu.Lock()
	t := &guessTry{code: r.codes.current, gen: r.codes.gen}
	r.mu.Unlock()
	return t, func(check func() bool) secure.GuessAnswer {
		r.cfg.hooks.OnGuessing()
		r.mu.Lock()
		if t.gen != r.codes.gen {
			answer := secure.Retired
			if t.gen == r.codes.usedGen {
				answer = r.usedAnswer()
			}
			r.mu.Unlock()
			return answer
		}
		g, saveErr := r.checkGuess(check)
		var evs []event.Event
		answer := secure.Wrong
		switch {
		case !g.Checked:
			answer = secure.Held
		case g.Right:
			t.wrongCodes = r.codes.wrongSince
			if next, used := r.useCode(g.Digits); used {
				evs = append(evs, event.CodeChanged{Code: next, Reason: event.CodeUsed})
				if l := r.longer(); l != nil {
					evs = append(evs, *l)
				}
			}
		default:
			r.codes.wrongSince++
			r.codes.wrong++
			switch {
			case g.Spent:
				// The code stays until NewCode: showing a new one that
				// nobody may use would only mislead.
			case r.codes.wrong >= r.cfg.hooks.MaxAttempts(defaultMaxAttempts):
				next := r.codes.retire(g.Digits)
				answer = secure.Retired
				evs = append(evs, event.CodeChanged{Code: next, Reason: event.CodeRetired})
				if l := r.longer(); l != nil {
					evs = append(evs, *l)
				}
			}
			if !g.Spent && g.Next.After(g.At) {
				evs = append(evs, event.CodesHeld{Until: g.Next.UTC().Format(time.RFC3339Nano), Wrong: g.Wrong})
			}
		}
		r.endGuess(t, g, saveErr, evs, ev)
		return answer
	}
}

// checkGuess has the budget check one guess, and tells a test's hook
// when it was checked. r.mu is held.
func (r *Receiver) checkGuess(check func() bool) (guess.Result, error) {
	g, saveErr := r.budget.Guess(check)
	if g.Checked {
		r.cfg.hooks.OnChecked(g.At, g.Right)
	}
	return g, saveErr
}

// endGuess ends a checked guess: when this guess spent the budget, or
// another Receiver's did, t keeps CodesStopped for its handshake to say
// (once per Receiver); then r.mu is released, a failure to save the
// count is reported, and evs are emitted.
func (r *Receiver) endGuess(t *guessTry, g guess.Result, saveErr error, evs []event.Event, ev *transfer.Emitter) {
	if g.Spent && !r.codes.toldStopped {
		r.codes.toldStopped = true
		t.stopped = &event.CodesStopped{Wrong: g.Wrong}
	}
	r.mu.Unlock()
	if saveErr != nil {
		r.budget.Warn(saveErr)
	}
	for _, e := range evs {
		ev.Emit(e)
	}
}

// longer returns the CodeLonger event that the current code calls for,
// when it is one the receiver picked, longer than core/guess's
// BaseDigits, and of another length than the last one told (once per
// length, per Receiver); nil otherwise. r.mu is held.
func (r *Receiver) longer() *event.CodeLonger {
	c := r.codes.current
	if (r.cfg.Code != "" && c == r.cfg.Code) || r.cfg.PairedOnly || len(c) <= guess.BaseDigits || len(c) == r.codes.toldDigits {
		return nil
	}
	r.codes.toldDigits = len(c)
	return &event.CodeLonger{Digits: len(c), Wrong: guess.StopAt * ((len(c) - guess.BaseDigits) / 2), Days: int(guess.FallBack / (24 * time.Hour))}
}

// tellLonger emits l, if there is one, with r.mu released.
func (r *Receiver) tellLonger(l *event.CodeLonger) {
	if l != nil {
		r.ev.Emit(*l)
	}
}

// tellStopped emits CodesStopped, once per Receiver, when the budget it
// was given is spent before any guess of its own spent it: kept from
// before a restart, spent by another Receiver, or a damaged record. A
// paired-only receiver checks no code and says nothing.
func (r *Receiver) tellStopped(ev *transfer.Emitter) {
	r.mu.Lock()
	longer := r.longer()
	r.mu.Unlock()
	if longer != nil {
		ev.Emit(*longer)
	}
	if r.cfg.PairedOnly || !r.budget.Stopped() {
		return
	}
	r.mu.Lock()
	told := r.codes.toldStopped
	r.codes.toldStopped = true
	r.mu.Unlock()
	if !told {
		ev.Emit(event.CodesStopped{Wrong: r.budget.Wrong()})
	}
}
