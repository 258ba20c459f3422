package transfer

// This file holds what a session is: its configurations (SendConfig,
// ReceiverConfig), the errors it ends with, the timing both ends keep,
// and link, the state and the reading both ends share. The sending end
// is send.go's sender, the receiving end receive.go's rsession; the
// messages are core/wire's; the tests' hooks are in hooks.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/wire"
)

// Sentinel errors a front end branches on. Errors returned by Send and
// Receiver.Serve wrap one of these (or one of secure's: ErrWrongCode,
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
	// Send on a Listener does, after MaxListenerGuesses connections
	// that could test the code and did not prove it.
	ErrCodesStopped = errkind.New(errkind.CodesStopped, "stopped taking codes after too many wrong ones")
)

// Policy decides offers without asking the front end.
type Policy int

const (
	Ask        Policy = iota // emit Offered and wait for Accept or Decline
	AcceptAll                // accept every offer
	DeclineAll               // decline every offer
)

// SendConfig is everything Send needs.
type SendConfig struct {
	// Addrs are the receiver's addresses, host:port, best first: one
	// typed by a person, or every address a discovered device advertised
	// (core/discovery's Peer.DialAddrs). Send tries them in order, one at
	// a time, each within a few seconds, and uses the first that answers;
	// if none does, its error names every address tried and why.
	Addrs []string
	Code  string // the code the receiver shows (empty in paired mode)
	// PeerKey, when set, is the receiver's pinned 32-byte static key and
	// selects paired mode: no code (Code must be empty); the receiver must
	// hold this key (else secure.ErrKeyChanged) and have pinned this
	// device's (else secure.ErrNotPaired).
	PeerKey  []byte
	Identity *secure.Identity  // this device's long-term key
	Name     string            // this device's name, shown to the receiver
	Items    []event.Item      // what to send
	OnEvent  func(event.Event) // may be nil
	Diag     bool              // emit Diagnostics every DiagInterval
	// Timeout is how long the peer may stay silent before the transfer
	// fails with ErrTimeout (default 30s).
	Timeout time.Duration
	// Dialer, when set, opens the connection to one of Addrs in place of
	// a TCP dial (tests use it to cut links). It may also hand over a
	// connection that was opened elsewhere: a desktop sending to a
	// browser page returns the WebSocket the page opened to it, wrapped
	// as a net.Conn. The sender is the handshake's initiator whichever
	// end dialed; Addrs then only names the peer in errors. Send closes
	// the connection when it returns.
	Dialer func(ctx context.Context, addr string) (net.Conn, error)
	// Listener, when set, is where the receiver connects from, in place
	// of Addrs and Dialer: a desktop sending to a browser page serves
	// the page (core/web's Mux in ToBrowser mode) and sends on the
	// WebSocket the page opens. Anyone on the network can load that
	// page, so Send checks that the peer proves the code before it
	// trusts it, and counts guesses itself (see sendAccepted): needs
	// Code, not PeerKey. Send does not close the Listener.
	Listener net.Listener

	hooks    *hooks // tests only
	exposing func() // secure.Config.Exposing, for sendAccepted
	gate     *gate  // SendMany's start line; nil for Send
	// read counts the bytes read from the sources for sending, for
	// ManyStats when nothing is shared (the fanout counts them
	// otherwise); may be nil.
	read *atomic.Int64
}

// ReceiverConfig is everything a Receiver needs.
type ReceiverConfig struct {
	Dir  string // destination folder (must exist); unused with Sink
	Code string // fixed code; empty picks a random one
	// Listen is the address to listen on; default ":0". Unused with
	// Listener or NoListen.
	Listen string
	// Listener, when set, is what Serve accepts connections from instead
	// of a TCP port bound on Listen: a front end that also takes Ferry
	// sessions over another transport (a browser's WebSocket wrapped as a
	// net.Conn) merges them into one listener, and every limit of Serve
	// (pending handshakes, busy refusals, the guess budget) applies to
	// them all (core/web's Mux is one). It must
	// have SetDeadline(time.Time) error, as *net.TCPListener has: Serve
	// ends its Accept with it and leaves it open for the next Serve. The
	// Receiver owns it: Close closes it. Connections whose RemoteAddr is
	// not a *net.TCPAddr are grouped by the host part of its String (see
	// core/internal/netsrc).
	Listener net.Listener
	// NoListen makes a Receiver that binds nothing and serves only the
	// connections handed to ServeConn (Serve then fails at once): a
	// browser page that receives over the WebSocket it opened.
	NoListen bool
	// Sink, when set, takes the entries instead of the folder Dir (see
	// Sink and the package doc's Sinks); nil writes into Dir as
	// described throughout this package.
	Sink      Sink
	Identity  *secure.Identity  //
	Name      string            // this device's name, shown to the sender
	Policy    Policy            //
	Overwrite bool              // replace existing files instead of "name (1).ext"
	SaveText  bool              // also save text snippets as files
	OnEvent   func(event.Event) // may be nil
	Diag      bool              //
	Timeout   time.Duration     // default 30s
	// Paired says whether this device pinned a sender's static key: a
	// sender in paired mode (no code) is accepted only if it returns
	// true. Nil refuses every paired sender (secure.ErrNotPaired); code
	// senders are served either way, with the code.
	Paired func(peerKey []byte) bool
	// AutoAcceptPaired makes the Ask policy accept offers from senders
	// authenticated by a pin without waiting for Accept (Offered is still
	// emitted, as with AcceptAll). Front ends offer it as a setting, off
	// by default. DeclineAll still declines.
	AutoAcceptPaired bool
	// PairedOnly makes a receiver that takes paired senders only: a
	// sender with a code is refused before any guess is checked
	// (secure.ErrNoCodes, reported as Refused with reason CodesOff). For
	// a receiver nobody watches (ferry receive --daemon), whose code
	// nobody reads. It needs Paired; Code is then unused.
	PairedOnly bool
	// MaxConcurrent is how many transfers ServeMany runs at once, at
	// most MaxConcurrentLimit; 0 or 1 serves one at a time, every other
	// sender refused as busy meanwhile (what Serve always does). Each
	// session has its own handshake, offer, question (see
	// Receiver.AcceptSession), progress and result; their events carry
	// its id (SessionOf). A receiver into a Sink takes one at a time.
	MaxConcurrent int
	// Budget is the device's guess budget (core/guess), shared by every
	// Receiver the front end makes for as long as the device receives,
	// and kept across restarts by its store. Nil gives this Receiver a
	// budget of its own, in memory, that starts full: only for a
	// receiver that lives as long as the device receives.
	Budget *guess.Budget

	hooks *hooks // tests only
}

// Timing both ends share.
const (
	defaultTimeout = 30 * time.Second // the silence allowed when the config says none
	maxAbortGrace  = 2 * time.Second  // the most an abort is given to get out
)

// keepaliveAfter is how long an end stays quiet before it sends a
// keepalive, given the silence the other end allows (timeout): a quarter
// of it, measured from the end's last flush. The other end's silence
// starts at its last read, a little after that flush, so three quarters
// of the timeout are left for the network, the scheduler and a loaded
// machine to deliver the keepalive; both ends use the same timeout.
func keepaliveAfter(timeout time.Duration) time.Duration { return timeout / 4 }

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

	hdr     [wire.HeaderLen]byte // readMsg's; one read at a time
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
	t    wire.Type
	n    int
	body []byte
}

// readMsg reads the next message other than a keepalive, for an end in
// state ph (a set: wire.EveryPhase takes anything, to be checked later with
// expect). Before each header it calls arm, which sets the read deadline
// (or fails, when the session was cancelled). An abort becomes the other
// end's error, kept for peerError; a message ph does not accept is
// ErrProtocol, refused before its body is read. The stream's errors are
// worded by readError, except a rejection in the handshake's place
// (refused) and, in wire.PhClosed, the end of the stream (io.EOF), which are
// returned as they are.
func (l *link) readMsg(ph wire.Phase, arm func() error) (msg, error) {
	for {
		if err := arm(); err != nil {
			return msg{}, err
		}
		t, n, err := wire.ReadHeader(l.conn, &l.hdr)
		if err != nil {
			if refused(err) || (ph == wire.PhClosed && errors.Is(err, io.EOF)) {
				return msg{}, err
			}
			return msg{}, l.readError(err)
		}
		if t == wire.MsgKeepalive {
			continue
		}
		m := msg{t: t, n: n}
		if err := l.expect(m, ph); err != nil {
			return msg{}, err
		}
		if t == wire.MsgData {
			return m, nil
		}
		if m.body, err = wire.ReadBody(l.conn, t, n); err != nil {
			return msg{}, l.readError(err)
		}
		if t == wire.MsgAbort {
			return msg{}, l.aborted(m.body)
		}
		return m, nil
	}
}

// expect checks that an end in state ph takes m.
func (l *link) expect(m msg, ph wire.Phase) error {
	if !m.t.AcceptedIn(ph) {
		return fmt.Errorf("unexpected %v from %s: %w", m.t, l.peer, ErrProtocol)
	}
	return nil
}

// aborted turns an abort's body into the other end's error.
func (l *link) aborted(body []byte) error {
	m, err := wire.DecodeAbort(body)
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
