package receive

import (
	"net"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// Policy decides offers without asking the front end.
type Policy int

const (
	Ask        Policy = iota // emit Offered and wait for Accept or Decline
	AcceptAll                // accept every offer
	DeclineAll               // decline every offer
)

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
	Sink      transfer.Sink
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

	hooks *testhooks.Hooks // tests only
}
