// Package dial is how the engine reaches a receiver and binds a port:
// a receiver's addresses tried in order, one at a time, each within one
// timeout (the only dial timeout of every front end), and an error that
// names every address tried. Under js/wasm (the browser page) there is
// no TCP: dialing and listening fail, and package net's resolver and
// dialer stay out of ferry.wasm (tcp_js.go).
package dial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Timeout bounds one attempt to connect to one address of a
// receiver (SendConfig.Addrs). A receiver on the local network answers in milliseconds; an
// address it advertised that is not reachable from here (another subnet,
// a VPN, a link-local IPv6 address on the wrong interface) costs this
// long before the next is tried. Every front end dials through
// core/transfer's Send, so this is the only dial timeout.
const Timeout = 4 * time.Second

// First connects to the first of addrs that answers, with dial (or
// TCP). It tries them in order, one at a time, and stops early when
// ctx is done: one at a time, not all at once, so that a receiver never
// sees a burst of connections that close unused; in order, because a
// discovered peer's addresses come best first (IPv4, then IPv6, a
// link-local one once per interface it was heard on). It returns the
// connection and the address that answered; the error names every
// address tried and why it failed, on one line, and unwraps to each
// attempt's error (a *net.OpError for a refused or timed-out dial).
func First(ctx context.Context, addrs []string, dial func(context.Context, string) (net.Conn, error)) (net.Conn, string, error) {
	if len(addrs) == 0 {
		return nil, "", errors.New("no addresses to dial")
	}
	if dial == nil {
		dial = TCP
	}
	var errs dialErrors
	for _, a := range addrs {
		c, err := dial(ctx, a)
		if err == nil {
			return c, a, nil
		}
		errs = append(errs, dialError{a, err})
		if ctx.Err() != nil {
			break
		}
	}
	return nil, "", errs
}

// dialError is one attempt: the address and why it failed. A net.Dialer's
// error names the address already; a SendConfig.Dialer's may not.
type dialError struct {
	addr string
	err  error
}

func (e dialError) Error() string {
	if s := e.err.Error(); strings.Contains(s, e.addr) {
		return s
	}
	return fmt.Sprintf("%s: %v", e.addr, e.err)
}

func (e dialError) Unwrap() error { return e.err }

// dialErrors reads as one line, "dial tcp A: ...; dial tcp B: ...", and
// unwraps to each attempt's error.
type dialErrors []dialError

func (e dialErrors) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e dialErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}

// FirstAddr is the address that names a receiver in results: the first
// of its addresses, or "".
func FirstAddr(addrs []string) string {
	if len(addrs) == 0 {
		return ""
	}
	return addrs[0]
}
