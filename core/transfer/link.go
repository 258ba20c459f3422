package transfer

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/secure"
)

// link is what both ends of a session share: the secure connection, who
// is at its other end, where events go, the stage timers and the
// silence allowed; and the reading of messages, which both ends do
// through readMsg. sender (send.go) and rsession (receive.go) each embed
// one.
type link struct {
	conn    stream
	peerFP  string
	peerKey []byte
	paired  bool // authenticated by pins, not by a code
	ev      *emitter
	timers  *diag.Timers
	timeout time.Duration
	peer    string // the other end, in errors: "the sender" or "the receiver"

	hdr     [headerLen]byte // readMsg's; one read at a time
	mu      sync.Mutex
	peerErr error // the abort the other end sent, as an error
}

// newLink is the link over sc, once its handshake is done.
func newLink(sc *secure.Conn, peer string, ev *emitter, timers *diag.Timers, timeout time.Duration) link {
	return link{conn: sc, peerFP: sc.PeerFingerprint(), peerKey: sc.PeerPublic(), paired: sc.Paired(),
		ev: ev, timers: timers, timeout: timeout, peer: peer}
}

// orDefault is d, or def when d is not set.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// msg is one message as readMsg returns it. A data chunk's body is left
// unread: its n bytes follow on the stream, for the caller to read into
// its own buffer.
type msg struct {
	t    msgType
	n    int
	body []byte
}

// readMsg reads the next message other than a keepalive, for an end in
// state ph (a set: everyPhase takes anything, to be checked later with
// expect). Before each header it calls arm, which sets the read deadline
// (or fails, when the session was cancelled). An abort becomes the other
// end's error, kept for peerError; a message ph does not accept is
// ErrProtocol, refused before its body is read. The stream's errors are
// worded by readError, except a rejection in the handshake's place
// (refused) and, in phClosed, the end of the stream (io.EOF), which are
// returned as they are.
func (l *link) readMsg(ph phase, arm func() error) (msg, error) {
	for {
		if err := arm(); err != nil {
			return msg{}, err
		}
		t, n, err := readHeader(l.conn, &l.hdr)
		if err != nil {
			if refused(err) || (ph == phClosed && errors.Is(err, io.EOF)) {
				return msg{}, err
			}
			return msg{}, l.readError(err)
		}
		if t == msgKeepalive {
			continue
		}
		m := msg{t: t, n: n}
		if err := l.expect(m, ph); err != nil {
			return msg{}, err
		}
		if t == msgData {
			return m, nil
		}
		if m.body, err = readBody(l.conn, t, n); err != nil {
			return msg{}, l.readError(err)
		}
		if t == msgAbort {
			return msg{}, l.aborted(m.body)
		}
		return m, nil
	}
}

// expect checks that an end in state ph takes m.
func (l *link) expect(m msg, ph phase) error {
	if !m.t.acceptedIn(ph) {
		return fmt.Errorf("unexpected %v from %s: %w", m.t, l.peer, ErrProtocol)
	}
	return nil
}

// aborted turns an abort's body into the other end's error.
func (l *link) aborted(body []byte) error {
	m, err := decodeAbort(body)
	if err != nil {
		return err
	}
	err = peerAbortError(l.peer, m)
	l.mu.Lock()
	l.peerErr = err
	l.mu.Unlock()
	return err
}

// peerError is the abort the other end sent, if it sent one.
func (l *link) peerError() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peerErr
}

// readError words a failure to read from the stream.
func (l *link) readError(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s closed the stream early: %w", l.peer, ErrProtocol)
	}
	return fmt.Errorf("receiving: %w", netError(err))
}
