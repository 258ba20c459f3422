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
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/secure"
)

// Receiver listens for one sender at a time. Its code and port are fixed
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
	wrong   int
	serving bool
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
		if code, err = newCode(""); err != nil {
			return nil, err
		}
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
func newCode(old string) (string, error) {
	for {
		n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
		if err != nil {
			return "", fmt.Errorf("picking a code: %w", err)
		}
		if c := fmt.Sprintf("%06d", n.Int64()); c != old {
			return c, nil
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
// declined, and returns its outcome. A connection that fails the
// handshake is closed and Serve keeps listening; a wrong code counts
// against the current code, and after MaxAttempts wrong codes a new one
// is picked and CodeChanged emitted. Handshakes are handled one at a
// time, each bounded by core/secure's handshake timeout.
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
	type deadliner interface{ SetDeadline(time.Time) error }
	if dl, ok := r.ln.(deadliner); ok {
		dl.SetDeadline(time.Time{})
		stop := context.AfterFunc(ctx, func() { dl.SetDeadline(time.Now()) })
		defer stop()
	}
	for {
		c, err := r.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return Summary{}, cancelError(ctx)
			}
			return Summary{}, fmt.Errorf("accepting a connection: %w", err)
		}
		timers := &diag.Timers{}
		code, last := r.attempt()
		sc, err := secure.Server(ctx, c, secure.Config{Identity: r.cfg.Identity, Code: code, Timers: timers, LastAttempt: last})
		if err != nil {
			c.Close()
			if ctx.Err() != nil {
				return Summary{}, cancelError(ctx)
			}
			if errors.Is(err, secure.ErrWrongCode) || errors.Is(err, secure.ErrCodeRetired) {
				if err := r.wrongCode(ev); err != nil {
					return Summary{}, err
				}
			}
			continue
		}
		r.cfg.hooks.onSecured(sc)
		s := &rsession{cfg: &r.cfg, decide: r.decide, conn: sc, ev: ev, timers: timers,
			peerFP: sc.PeerFingerprint(), timeout: r.cfg.Timeout}
		return s.run(ctx)
	}
}

// attempt returns the current code and whether a wrong guess now would
// retire it (the sender is then told so).
func (r *Receiver) attempt() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.code, r.wrong+1 >= r.cfg.MaxAttempts
}

// wrongCode counts a failed guess and retires the code after too many.
func (r *Receiver) wrongCode(ev *emitter) error {
	r.mu.Lock()
	r.wrong++
	if r.wrong < r.cfg.MaxAttempts {
		r.mu.Unlock()
		return nil
	}
	code, err := newCode(r.code)
	if err != nil {
		r.mu.Unlock()
		return err
	}
	r.code, r.wrong = code, 0
	r.mu.Unlock()
	ev.emit(CodeChanged{Code: code})
	return nil
}
