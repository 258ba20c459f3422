package send

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
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

	exposing func() // secure.Config.Exposing, for sendAccepted
	gate     *gate  // SendMany's start line; nil for Send
	// read counts the bytes read from the sources for sending, for
	// ManyStats when nothing is shared (the fanout counts them
	// otherwise); may be nil.
	read *atomic.Int64
}
