package transfer

// This file holds what a session is: the errors it ends with, the
// timing both ends keep, and link, the state and the reading both ends
// share. The sending end is core/send's sender (send.go), the receiving
// end core/receive's rsession (receive.go), each with its configuration;
// the messages are core/wire's; the tests' hooks
// are core/internal/testhooks's.

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/wire"
)

// Sentinel errors a front end branches on. Errors returned by Send and
// receive.Receiver.Serve wrap one of these (or one of secure's: ErrWrongCode,
// ErrIncompatibleVersion, ErrTruncated, ErrConnectionLost) where one
// applies; errors.Is finds them.
var (
	ErrDeclined      = errkind.New(errkind.Declined, "the receiver declined the transfer")
	ErrCancelled     = errkind.New(errkind.Cancelled, "transfer cancelled")
	ErrVerify        = errkind.New(errkind.Verify, "verification failed: hash mismatch")
	ErrRefusedPath   = place.ErrRefusedPath
	ErrNoSpace       = place.ErrNoSpace
	ErrTimeout       = errkind.New(errkind.Timeout, "the peer went silent")
	ErrSourceChanged = errkind.New(errkind.SourceChanged, "a file changed on the sender's disk during the transfer")
	ErrProtocol      = wire.ErrProtocol
	// ErrCodesStopped is for a front end that ends its receiver on
	// CodesStopped: the guess budget is spent and no code is checked
	// until a person asks for a new one. Serve itself never returns it;
	// Send on a Listener does, after send.MaxListenerGuesses connections
	// that could test the code and did not prove it.
	ErrCodesStopped = errkind.New(errkind.CodesStopped, "stopped taking codes after too many wrong ones")
)

// Timing both ends share.
const (
	DefaultTimeout = 30 * time.Second // the silence allowed when the config says none
	MaxAbortGrace  = 2 * time.Second  // the most an abort is given to get out
)

// KeepaliveAfter is how long an end stays quiet before it sends a
// keepalive, given the silence the other end allows (timeout): a quarter
// of it, measured from the end's last flush. The other end's silence
// starts at its last read, a little after that flush, so three quarters
// of the timeout are left for the network, the scheduler and a loaded
// machine to deliver the keepalive; both ends use the same timeout.
func KeepaliveAfter(timeout time.Duration) time.Duration { return timeout / 4 }

// Link is what both ends of a session share: the secure connection, who
// is at its other end, where events go, the stage timers and the
// silence allowed; and the reading of messages, which both ends do
// through ReadMsg. core/send's sender and core/receive's rsession each embed
// one.
type Link struct {
	Conn    stream
	PeerFP  string
	PeerKey []byte
	Paired  bool // authenticated by pins, not by a code
	Events  *Emitter
	Timers  *diag.Timers
	Timeout time.Duration
	peer    string // the other end, in errors: "the sender" or "the receiver"

	hdr     [wire.HeaderLen]byte // readMsg's; one read at a time
	mu      sync.Mutex
	peerErr error // the abort the other end sent, as an error
}

// NewLink is the link over sc, once its handshake is done.
func NewLink(sc *secure.Conn, peer string, ev *Emitter, timers *diag.Timers, timeout time.Duration) Link {
	return Link{Conn: sc, PeerFP: sc.PeerFingerprint(), PeerKey: sc.PeerPublic(), Paired: sc.Paired(),
		Events: ev, Timers: timers, Timeout: timeout, peer: peer}
}

// OrDefault is d, or def when d is not set.
func OrDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Msg is one message as readMsg returns it. A data chunk's body is left
// unread: its n bytes follow on the stream, for the caller to read into
// its own buffer.
type Msg struct {
	Type wire.Type
	Len  int
	Body []byte
}

// ReadMsg reads the next message other than a keepalive, for an end in
// state ph (a set: wire.EveryPhase takes anything, to be checked later with
// expect). Before each header it calls arm, which sets the read deadline
// (or fails, when the session was cancelled). An abort becomes the other
// end's error, kept for peerError; a message ph does not accept is
// ErrProtocol, refused before its body is read. The stream's errors are
// worded by readError, except a rejection in the handshake's place
// (refused) and, in wire.PhClosed, the end of the stream (io.EOF), which are
// returned as they are.
func (l *Link) ReadMsg(ph wire.Phase, arm func() error) (Msg, error) {
	for {
		if err := arm(); err != nil {
			return Msg{}, err
		}
		t, n, err := wire.ReadHeader(l.Conn, &l.hdr)
		if err != nil {
			if Refused(err) || (ph == wire.PhClosed && errors.Is(err, io.EOF)) {
				return Msg{}, err
			}
			return Msg{}, l.ReadError(err)
		}
		if t == wire.MsgKeepalive {
			continue
		}
		m := Msg{Type: t, Len: n}
		if err := l.Expect(m, ph); err != nil {
			return Msg{}, err
		}
		if t == wire.MsgData {
			return m, nil
		}
		if m.Body, err = wire.ReadBody(l.Conn, t, n); err != nil {
			return Msg{}, l.ReadError(err)
		}
		if t == wire.MsgAbort {
			return Msg{}, l.aborted(m.Body)
		}
		return m, nil
	}
}

// Expect checks that an end in state ph takes m.
func (l *Link) Expect(m Msg, ph wire.Phase) error {
	if !m.Type.AcceptedIn(ph) {
		return fmt.Errorf("unexpected %v from %s: %w", m.Type, l.peer, ErrProtocol)
	}
	return nil
}

// aborted turns an abort's body into the other end's error.
func (l *Link) aborted(body []byte) error {
	m, err := wire.DecodeAbort(body)
	if err != nil {
		return err
	}
	err = PeerAbortError(l.peer, m)
	l.mu.Lock()
	l.peerErr = err
	l.mu.Unlock()
	return err
}

// PeerError is the abort the other end sent, if it sent one.
func (l *Link) PeerError() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peerErr
}

// ReadError words a failure to read from the stream.
func (l *Link) ReadError(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s closed the stream early: %w", l.peer, ErrProtocol)
	}
	return fmt.Errorf("receiving: %w", NetError(err))
}
