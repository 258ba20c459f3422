package transfer

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
)

// Receiver takes one transfer at a time. Its code and port are fixed
// from NewReceiver on (the code changes only after MaxAttempts wrong
// guesses), so a front end can show them, and advertise them, before
// Serve runs.
type Receiver struct {
	cfg     ReceiverConfig
	ln      net.Listener
	decide  chan bool // Accept/Decline, buffered: a handler may call them
	life    context.Context
	kill    context.CancelCauseFunc
	mu      sync.Mutex
	code    string
	gen     int // how many codes were retired
	wrong   int // wrong guesses checked against code
	serving bool

	refusals refusalLimit // Refused events, across Serve calls
}

var errReceiverClosed = errors.New("receiver closed")

// NewReceiver checks the destination, binds the listener and picks a
// random 6-digit code unless cfg.Code is set.
func NewReceiver(cfg ReceiverConfig) (*Receiver, error) {
	fi, err := os.Stat(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("checking destination: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("destination %s is not a folder", cfg.Dir)
	}
	if cfg.Identity == nil {
		return nil, errors.New("receiver needs an identity")
	}
	code := cfg.Code
	if code == "" {
		code = newCode("")
	}
	addr := cfg.Listen
	if addr == "" {
		addr = ":0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	cfg.Timeout = cmp(cfg.Timeout, defaultTimeout)
	life, kill := context.WithCancelCause(context.Background())
	return &Receiver{cfg: cfg, ln: ln, code: code, decide: make(chan bool, 1), life: life, kill: kill}, nil
}

// newCode picks a 6-digit code (about 20 bits) other than old.
func newCode(old string) string {
	for {
		n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
		if err != nil {
			// crypto/rand's Reader never fails since Go 1.24: it crashes
			// the program instead.
			panic("transfer: crypto/rand failed: " + err.Error())
		}
		if c := fmt.Sprintf("%06d", n.Int64()); c != old {
			return c
		}
	}
}

// Code returns the code a sender must type.
func (r *Receiver) Code() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.code
}

// Port returns the TCP port the receiver listens on.
func (r *Receiver) Port() int {
	if a, ok := r.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Accept answers the pending offer (or the next one) with yes.
func (r *Receiver) Accept() { r.answer(true) }

// Decline answers the pending offer (or the next one) with no.
func (r *Receiver) Decline() { r.answer(false) }

func (r *Receiver) answer(yes bool) {
	select {
	case r.decide <- yes:
	default: // an answer is already waiting; the first one counts
	}
}

// Close stops listening and ends a transfer in progress (the sender is
// told "receiver closed").
func (r *Receiver) Close() error {
	r.kill(errReceiverClosed)
	return r.ln.Close()
}

// Serve accepts connections until one transfer completes, fails or is
// declined, and returns its outcome. Handshakes run concurrently, each
// bounded by core/secure's handshake timeout and the limits on pending
// connections (see accept.go); one that fails is closed and Serve keeps
// listening. A wrong code counts against the current code; after
// MaxAttempts wrong codes a new one is picked and CodeChanged emitted. A
// sender refused in paired mode (no pin for it here, or its pin for this
// device stale) is reported with Refused.
// The first connection through the handshake becomes the transfer; while
// it runs, every other connection is refused as busy (the sender gets
// secure.ErrBusy). Serve returns only after every goroutine it started
// has ended; handshakes still pending then are closed.
func (r *Receiver) Serve(ctx context.Context) (sum Summary, err error) {
	ev := &emitter{f: r.cfg.OnEvent}
	defer func() {
		if err != nil {
			ev.emit(Failed{Err: err})
		}
	}()
	r.mu.Lock()
	busy := r.serving
	r.serving = true
	r.mu.Unlock()
	if busy {
		return Summary{}, errors.New("receiver is already serving")
	}
	defer func() { r.mu.Lock(); r.serving = false; r.mu.Unlock() }()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopLife := context.AfterFunc(r.life, func() { cancel(context.Cause(r.life)) })
	defer stopLife()
	a := r.start(ctx, ev)
	defer a.stop(cancel)
	select {
	case w := <-a.won:
		r.cfg.hooks.onSecured(w.sc)
		s := &rsession{cfg: &r.cfg, decide: r.decide, conn: w.sc, ev: ev, timers: w.timers,
			peerFP: w.sc.PeerFingerprint(), peerKey: w.sc.PeerPublic(), paired: w.sc.Paired(), timeout: r.cfg.Timeout}
		return s.run(ctx)
	case err := <-a.failed:
		if r.life.Err() != nil { // Close closed the listener
			return Summary{}, cancelError(r.life)
		}
		return Summary{}, fmt.Errorf("accepting a connection: %w", err)
	case <-ctx.Done():
		return Summary{}, cancelError(ctx)
	}
}

// attempt returns the code a new handshake uses and the Guess hook that
// checks its message 3. The hook holds r.mu across the check, so that
// concurrent handshakes never check more than MaxAttempts guesses against
// one code: a guess for a code retired meanwhile is refused unchecked.
func (r *Receiver) attempt(ev *emitter) (string, func(check func() bool) bool) {
	r.mu.Lock()
	code, gen := r.code, r.gen
	r.mu.Unlock()
	return code, func(check func() bool) (retired bool) {
		r.mu.Lock()
		if gen != r.gen {
			r.mu.Unlock()
			return true
		}
		if check() {
			r.mu.Unlock()
			return false
		}
		r.wrong++
		if r.wrong < r.cfg.MaxAttempts {
			r.mu.Unlock()
			return false
		}
		next := newCode(r.code)
		r.code, r.wrong, r.gen = next, 0, r.gen+1
		r.mu.Unlock()
		ev.emit(CodeChanged{Code: next})
		return true
	}
}
