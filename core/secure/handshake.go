package secure

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"filippo.io/cpace"
	"github.com/flynn/noise"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/internal/streamtune"
	"github.com/ferry-project/ferry/core/internal/testhooks"
)

// Config configures one end of a handshake.
type Config struct {
	Identity *Identity
	// Code is the short code both ends share (code mode). The initiator
	// sets exactly one of Code and PeerKey; the responder sets Code, and
	// Paired to accept paired mode too. A responder with Paired and no
	// Code takes paired mode only: it refuses a code-mode initiator with
	// ErrNoCodes before any guess (rejection 8).
	Code string
	// PeerKey (initiator only) is the pinned 32-byte static public key of
	// the responder. Setting it selects paired mode: no code, no CPace;
	// the responder must prove it holds this key (else ErrKeyChanged).
	PeerKey []byte
	// Paired (responder only) is asked, in a paired-mode handshake, with
	// the initiator's proven static key: true if this device pinned it.
	// Nil refuses every paired-mode handshake (ErrNotPaired).
	Paired func(peerKey []byte) bool
	// Cipher forces a cipher; Auto (the zero value) negotiates.
	Cipher Cipher
	// Timers, if set, receives the stream's encrypt, socket and decrypt
	// times.
	Timers *diag.Timers
	// Timeout bounds the whole handshake (default 10s).
	Timeout time.Duration
	// LastAttempt (responder) marks the last guess this code allows: a
	// wrong code is then rejected as ErrCodeRetired, so the sender knows
	// to ask for the new one. Guess, when set, replaces it.
	LastAttempt bool
	// Guess (responder, code mode), when set, is called once message 3
	// arrives, with check, which checks the initiator's guess and reports
	// whether the code was right. Guess calls check at most once, and only
	// if the code may still be guessed, holding whatever lock makes its
	// count of wrong guesses exact when handshakes run concurrently. When
	// the guess was not right (or not checked) it returns what to tell the
	// initiator: Wrong, Retired (the code was retired, now or meanwhile)
	// or Held (the guess was not checked: the caller's guess budget holds
	// guesses back). Check is quick: one Diffie-Hellman and one AEAD open.
	Guess func(check func() bool) GuessAnswer
	// Exposing (initiator, code mode), when set, is called just before
	// message 3 is sent. From then on the responder can test one guess
	// of the code against message 3 by itself, offline, whether or not
	// it answers: an initiator that cannot count on the responder to
	// report a wrong code (a desktop sending to whatever page connected,
	// core/transfer's SendConfig.Listener) counts the guess here, and
	// only the responder's first record (which opens only under the
	// same code) proves that the guess was right.
	Exposing func()

	// tune holds the benchmarks' knobs (core/internal/streamtune), taken from
	// the context of Client or Server; core/secure's own tests set it.
	tune streamtune.Knobs
}

// GuessAnswer is what a responder's Config.Guess tells an initiator whose
// guess was not right.
type GuessAnswer uint8

const (
	// Wrong: the guess was checked and was wrong; the code stands.
	Wrong GuessAnswer = iota
	// Retired: the code is retired (this guess used its last attempt, or
	// another retired it meanwhile and this guess was not checked).
	Retired
	// Held: the guess was not checked, because the responder holds code
	// guesses back after too many wrong ones (ErrCodesHeld).
	Held
	// Busy: the guess was not checked, because the code was used up by
	// another initiator meanwhile and the responder is in its transfer
	// (ErrBusy): this one may try again with the next code.
	Busy
)

const (
	defaultTimeout = 10 * time.Second
	// maxHandshakeMsg bounds a handshake frame; real ones are under 200
	// bytes.
	maxHandshakeMsg = 1024
	pskInfo         = "ferry v1 noise psk3 from cpace"
	cpaceInitiator  = "ferry sender"
	cpaceResponder  = "ferry receiver"
)

func suite(c Cipher) noise.CipherSuite {
	return noise.NewCipherSuite(noise.DH25519, c.noise(), noise.HashBLAKE2s)
}

// Client runs the handshake as the dialing side (the sender). On error
// the caller still owns nc and should close it.
func Client(ctx context.Context, nc net.Conn, cfg Config) (*Conn, error) {
	c, err := handshake(ctx, nc, &cfg, true)
	if err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	return c, nil
}

// Server runs the handshake as the listening side (the receiver). A wrong
// code returns ErrWrongCode (or ErrCodeRetired with cfg.LastAttempt) after
// telling the client so.
func Server(ctx context.Context, nc net.Conn, cfg Config) (*Conn, error) {
	c, err := handshake(ctx, nc, &cfg, false)
	if err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	return c, nil
}

func handshake(ctx context.Context, nc net.Conn, cfg *Config, initiator bool) (*Conn, error) {
	if cfg.Identity == nil {
		return nil, errors.New("no identity configured")
	}
	if err := checkModes(cfg, initiator); err != nil {
		return nil, err
	}
	if k := streamtune.From(ctx); k != (streamtune.Knobs{}) {
		cfg.tune = k
	}
	var c *Conn
	err := bounded(ctx, nc, cfg.Timeout, func() (err error) {
		if initiator {
			c, err = initiate(nc, cfg)
		} else {
			c, err = respond(nc, cfg)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if h := testhooks.From(ctx); h != nil {
		c.w.rc.afterSeal = h.Seal
	}
	return c, nil
}

// bounded runs fn under one deadline for the whole exchange: timeout
// (default 10s) or the context's, whichever is sooner. Cancelling ctx
// unblocks fn by expiring the deadline, so no goroutine waits on the
// socket; the error is then the context's cause. On success the deadline
// is cleared.
func bounded(ctx context.Context, nc net.Conn, timeout time.Duration, fn func() error) (err error) {
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := nc.SetDeadline(deadline); err != nil {
		return fmt.Errorf("setting deadline: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() && ctx.Err() != nil {
			err = context.Cause(ctx)
			return
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("%w (limit %v): %w", ErrHandshakeTimeout, timeout, err)
		}
		if err == nil {
			err = nc.SetDeadline(time.Time{})
		}
	}()
	return fn()
}

func initiate(nc net.Conn, cfg *Config) (*Conn, error) {
	paired := len(cfg.PeerKey) > 0
	mine := makePreamble(ProtocolVersion, offerFor(cfg.Cipher, paired, hasAESHardware()))
	if _, err := nc.Write(mine[:]); err != nil {
		return nil, netErr("sending preamble", err)
	}
	var b [preambleSize]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return nil, netErr("reading preamble", err)
	}
	theirs, err := parsePreamble(b[:])
	if err != nil {
		return nil, err
	}
	ciph := Cipher(theirs.last())
	if ciph != AESGCM && ciph != ChaChaPoly {
		return nil, fmt.Errorf("reading preamble: %w: unknown cipher %d", ErrNotFerry, ciph)
	}
	prologue := append(mine[:], theirs[:]...)
	if paired {
		return initiatePaired(nc, cfg, ciph, prologue)
	}
	hs, err := noise.NewHandshakeState(noise.Config{
		CipherSuite:           suite(ciph),
		Pattern:               noise.HandshakeXX,
		Initiator:             true,
		Prologue:              prologue,
		PresharedKeyPlacement: 3,
		StaticKeypair:         cfg.Identity.kp,
	})
	if err != nil {
		return nil, fmt.Errorf("starting noise: %w", err)
	}
	ci := cpace.NewContextInfo(cpaceInitiator, cpaceResponder, prologue)
	msgA, pake, err := cpace.Start(cfg.Code, ci)
	if err != nil {
		return nil, fmt.Errorf("starting cpace: %w", err)
	}
	if _, _, err := sendMessage(nc, hs, "message 1", msgA); err != nil {
		return nil, err
	}
	msgB, _, _, err := receiveMessage(nc, hs, "message 2", fromResponder)
	if err != nil {
		return nil, err
	}
	key, err := pake.Finish(msgB)
	if err != nil {
		return nil, fmt.Errorf("finishing cpace: %w", ErrAuth)
	}
	if err := setPSK(hs, derivePSK(key)); err != nil {
		return nil, err
	}
	if cfg.Exposing != nil {
		cfg.Exposing()
	}
	send, recv, err := sendMessage(nc, hs, "message 3", nil)
	if err != nil {
		return nil, err
	}
	return finish(nc, cfg, ciph, hs, send, recv, true)
}

func respond(nc net.Conn, cfg *Config) (*Conn, error) {
	theirs, mine, ciph, err := answerPreamble(nc, cfg.Cipher, hasAESHardware())
	if err != nil {
		return nil, err
	}
	prologue := append(theirs[:], mine[:]...)
	if theirs.last()&offerPaired != 0 {
		return respondPaired(nc, cfg, ciph, prologue)
	}
	if cfg.Code == "" {
		// Paired mode only: refused in place of message 2, before CPace,
		// so no guess is ever checked.
		reject(nc, rejectNoCodes)
		return nil, fmt.Errorf("%w: a sender used a code, and this device checks none", ErrNoCodes)
	}
	hs, err := noise.NewHandshakeState(noise.Config{
		CipherSuite:           suite(ciph),
		Pattern:               noise.HandshakeXX,
		Initiator:             false,
		Prologue:              prologue,
		PresharedKeyPlacement: 3,
		StaticKeypair:         cfg.Identity.kp,
	})
	if err != nil {
		return nil, fmt.Errorf("starting noise: %w", err)
	}
	msgA, _, _, err := receiveMessage(nc, hs, "message 1", nil)
	if err != nil {
		return nil, err
	}
	ci := cpace.NewContextInfo(cpaceInitiator, cpaceResponder, prologue)
	msgB, key, err := cpace.Exchange(cfg.Code, ci, msgA)
	if err != nil {
		return nil, fmt.Errorf("answering cpace: %w", ErrAuth)
	}
	if _, _, err := sendMessage(nc, hs, "message 2", msgB); err != nil {
		return nil, err
	}
	if err := setPSK(hs, derivePSK(key)); err != nil {
		return nil, err
	}
	m3, err := readFrame(nc, "message 3", nil)
	if err != nil {
		return nil, err
	}
	// With the PSK mixed in, message 3 opens only if both ends derived the
	// same CPace key, that is, used the same code.
	var recv, send *noise.CipherState
	right := false
	check := func() bool {
		if right || recv != nil {
			panic("secure: Guess called check twice") // a broken caller, not peer input
		}
		var err error
		_, recv, send, err = hs.ReadMessage(nil, m3)
		right = err == nil
		return right
	}
	answer := Wrong
	if cfg.LastAttempt {
		answer = Retired
	}
	if cfg.Guess != nil {
		answer = cfg.Guess(check)
	} else {
		check()
	}
	if !right {
		reason, sentinel := rejection(answer)
		reject(nc, reason)
		return nil, fmt.Errorf("reading message 3: %w", sentinel)
	}
	return finish(nc, cfg, ciph, hs, send, recv, false)
}

// rejection is what a sender whose message 3 did not open is told, and
// the error this end returns, for the receiver's answer to its guess.
func rejection(answer GuessAnswer) (reason byte, sentinel error) {
	switch answer {
	case Retired:
		return rejectCodeRetired, ErrCodeRetired
	case Held:
		return rejectCodesHeld, ErrCodesHeld
	case Busy:
		return rejectBusy, ErrBusy
	}
	return rejectWrongCode, ErrWrongCode
}

// answerPreamble reads the initiator's preamble and answers it with the
// cipher this end chooses. To a newer or older version it answers with
// its own version, so that the other end can say which.
func answerPreamble(nc net.Conn, want Cipher, hw bool) (theirs, mine preamble, ciph Cipher, err error) {
	var b [preambleSize]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		return theirs, mine, 0, netErr("reading preamble", err)
	}
	theirs, err = parsePreamble(b[:])
	if errors.Is(err, ErrIncompatibleVersion) {
		mine = makePreamble(ProtocolVersion, 0)
		nc.Write(mine[:])
		return theirs, mine, 0, err
	}
	if err != nil {
		return theirs, mine, 0, err
	}
	if ciph, err = choose(theirs.last(), want, hw); err != nil {
		return theirs, mine, 0, err
	}
	mine = makePreamble(ProtocolVersion, byte(ciph))
	if _, err := nc.Write(mine[:]); err != nil {
		return theirs, mine, 0, netErr("sending preamble", err)
	}
	return theirs, mine, ciph, nil
}

func finish(nc net.Conn, cfg *Config, ciph Cipher, hs *noise.HandshakeState, send, recv *noise.CipherState, initiator bool) (*Conn, error) {
	if send == nil || recv == nil {
		return nil, errors.New("noise handshake did not complete") // invariant of XX: three messages
	}
	sc, err := newRecordCipher(ciph, send)
	if err != nil {
		return nil, err
	}
	rc, err := newRecordCipher(ciph, recv)
	if err != nil {
		return nil, err
	}
	c := newConn(nc, ciph, sc, rc, hs.PeerStatic(), cfg)
	// Only the responder rejects after the handshake; the responder's
	// reader treats a zero length as the malformed record it is.
	c.r.fresh = initiator
	return c, nil
}

// derivePSK expands the CPace key into Noise's 32-byte PSK.
func derivePSK(cpaceKey []byte) []byte {
	psk, err := hkdf.Key(sha256.New, cpaceKey, nil, pskInfo, 32)
	if err != nil {
		panic("secure: hkdf: " + err.Error()) // only fails for lengths over 255·32
	}
	return psk
}

// setPSK refuses anything but a 32-byte key: flynn/noise mixes a missing
// PSK in as empty when reading, which would quietly turn XXpsk3 into a
// handshake no code protects.
func setPSK(hs *noise.HandshakeState, psk []byte) error {
	if len(psk) != 32 {
		return fmt.Errorf("%w (got %d)", ErrBadPSK, len(psk))
	}
	return hs.SetPresharedKey(psk)
}

func writeFrame(nc net.Conn, msg []byte) error {
	b := make([]byte, lenSize+len(msg))
	binary.BigEndian.PutUint16(b, uint16(len(msg)))
	copy(b[lenSize:], msg)
	if _, err := nc.Write(b); err != nil {
		return netErr("sending handshake", err)
	}
	return nil
}

// sendMessage writes the next handshake message, carrying payload, and
// frames it onto the socket. On the last message it returns the
// transport cipher states (initiator's sending one first).
func sendMessage(nc net.Conn, hs *noise.HandshakeState, what string, payload []byte) (*noise.CipherState, *noise.CipherState, error) {
	m, cs1, cs2, err := hs.WriteMessage(nil, payload)
	if err != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", what, err)
	}
	if err := writeFrame(nc, m); err != nil {
		return nil, nil, err
	}
	return cs1, cs2, nil
}

// receiveMessage reads the next handshake message (or the peer's
// rejection, see readFrame) and opens it: a message that does not open is
// ErrAuth. On the last message it returns the transport cipher states.
func receiveMessage(nc net.Conn, hs *noise.HandshakeState, what string, meaning func(byte) error) ([]byte, *noise.CipherState, *noise.CipherState, error) {
	m, err := readFrame(nc, what, meaning)
	if err != nil {
		return nil, nil, nil, err
	}
	payload, cs1, cs2, err := hs.ReadMessage(nil, m)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading %s: %w", what, ErrAuth)
	}
	return payload, cs1, cs2, nil
}

// readFrame reads one handshake message. A zero length is the peer's
// rejection instead (see refuse.go): meaning says what its reason byte
// means to this end, and a nil meaning accepts none.
func readFrame(nc net.Conn, what string, meaning func(byte) error) ([]byte, error) {
	var l [lenSize]byte
	if _, err := io.ReadFull(nc, l[:]); err != nil {
		return nil, netErr("reading "+what, err)
	}
	n := int(binary.BigEndian.Uint16(l[:]))
	if n == 0 {
		return nil, readRejection(nc, what, meaning)
	}
	if n > maxHandshakeMsg {
		return nil, fmt.Errorf("reading %s: %w: length %d", what, ErrMalformed, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(nc, b); err != nil {
		return nil, netErr("reading "+what, err)
	}
	return b, nil
}

// netErr classifies a socket error met during the handshake. Deadline
// errors stay visible to handshake(), which turns them into
// ErrHandshakeTimeout.
func netErr(op string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w: the peer closed the connection", op, ErrConnectionLost)
	}
	return fmt.Errorf("%s: %w: %w", op, ErrConnectionLost, err)
}
