package transfer

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/ferry-project/ferry/core/secure"
)

// Sentinel errors a front end branches on. Errors returned by Send and
// Receiver.Serve wrap one of these (or one of secure's: ErrWrongCode,
// ErrIncompatibleVersion, ErrTruncated, ErrConnectionLost) where one
// applies; errors.Is finds them.
var (
	ErrDeclined      = errors.New("the receiver declined the transfer")
	ErrCancelled     = errors.New("transfer cancelled")
	ErrVerify        = errors.New("verification failed: hash mismatch")
	ErrRefusedPath   = errors.New("refused path")
	ErrNoSpace       = errors.New("not enough free space")
	ErrTimeout       = errors.New("the peer went silent")
	ErrSourceChanged = errors.New("a file changed on the sender's disk during the transfer")
	ErrProtocol      = errors.New("protocol violation")
	// ErrCodesStopped is for a front end that ends its receiver on
	// CodesStopped: the guess budget is spent and no code is checked
	// until a person asks for a new one. Serve itself never returns it.
	ErrCodesStopped = errors.New("stopped taking codes after too many wrong ones")
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
	Identity *secure.Identity // this device's long-term key
	Name     string           // this device's name, shown to the receiver
	Items    []Item           // what to send
	OnEvent  func(Event)      // may be nil
	Diag     bool             // emit Diagnostics every DiagInterval
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

	hooks *hooks // tests only
	gate  *gate  // SendMany's start line; nil for Send
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
	// them all. ConnListener is one to hand such connections to. It must
	// have SetDeadline(time.Time) error, as *net.TCPListener has: Serve
	// ends its Accept with it and leaves it open for the next Serve. The
	// Receiver owns it: Close closes it. Connections whose RemoteAddr is
	// not a *net.TCPAddr are grouped by the host part of its String (see
	// sourceOf).
	Listener net.Listener
	// NoListen makes a Receiver that binds nothing and serves only the
	// connections handed to ServeConn (Serve then fails at once): a
	// browser page that receives over the WebSocket it opened.
	NoListen bool
	// Sink, when set, takes the entries instead of the folder Dir (see
	// Sink and the package doc's Sinks); nil writes into Dir as
	// described throughout this package.
	Sink      Sink
	Identity  *secure.Identity //
	Name      string           // this device's name, shown to the sender
	Policy    Policy           //
	Overwrite bool             // replace existing files instead of "name (1).ext"
	SaveText  bool             // also save text snippets as files
	OnEvent   func(Event)      // may be nil
	Diag      bool             //
	Timeout   time.Duration    // default 30s
	// MaxAttempts is how many wrong codes retire the current one (default 3).
	MaxAttempts int
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

	hooks *hooks // tests only
}

// hooks let this package's tests slow one stage on purpose and look at
// the secure connection. They are unexported fields of the configs, so no
// front end can set them; core/internal/testhooks does the same for the
// cipher, which lives in core/secure.
type hooks struct {
	// diskRead wraps each source file as the sender reads its chunks, and
	// diskWrite each partial file as the receiver writes them: both inside
	// the call the disk timers wrap.
	diskRead  func(io.Reader) io.Reader
	diskWrite func(io.Writer) io.Writer
	// secured is given each end's connection once the handshake is done.
	secured func(*secure.Conn)
	// admitted is told, from the receiver's accept loop, how many
	// connections are pending once it admitted one.
	admitted func(pending int)
	// now replaces time.Now for the limit on Refused events.
	now func() time.Time
	// guessNow replaces time.Now for the guess budget; checked is told
	// of every guess checked, under the lock that counts it.
	guessNow func() time.Time
	checked  func(at time.Time, right bool)
}

func (h *hooks) reader(r io.Reader) io.Reader {
	if h == nil || h.diskRead == nil {
		return r
	}
	return h.diskRead(r)
}

func (h *hooks) writer(w io.Writer) io.Writer {
	if h == nil || h.diskWrite == nil {
		return w
	}
	return h.diskWrite(w)
}

func (h *hooks) onAdmitted(n int) {
	if h != nil && h.admitted != nil {
		h.admitted(n)
	}
}

func (h *hooks) clock() time.Time {
	if h != nil && h.now != nil {
		return h.now()
	}
	return time.Now()
}

func (h *hooks) onSecured(c *secure.Conn) {
	if h != nil && h.secured != nil {
		h.secured(c)
	}
}
