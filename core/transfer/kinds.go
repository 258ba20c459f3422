package transfer

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/ferry-project/ferry/core/dial"
	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/platform"
)

// The engine's part of the taxonomy (core/errkind): the kinds of the
// operating system's and the network's errors, which carry none. Every
// error that leaves the engine (returned, or in a Error event) goes
// through withKind, so a front end reads any error's kind with
// errkind.Of alone. Sentinels (this package's, core/secure's) carry
// their own kind; errkind.Of ranks them against the kind given here.

// osRule gives the kind of the errors that fit it.
type osRule struct {
	kind errkind.Kind
	fits func(error) bool
}

// osRules are tried in order: the first that fits names the error.
var osRules = []osRule{
	{errkind.NoSpace, platform.IsNoSpace},
	{errkind.ConnectionLost, is(syscall.ECONNRESET, syscall.EPIPE)},
	{errkind.Unreachable, unreachable},
	{errkind.AddressInUse, platform.IsAddrInUse},
	{errkind.ConnectionLost, streamFailed},
	{errkind.Permission, is(syscall.EROFS)}, // fs.ErrPermission and fs.ErrNotExist: core/errkind
}

// Listen listens on addr (host:port) for a front end that shares the
// port between Ferry and something else (core/web's Mux, then
// receive.ReceiverConfig.Listener): its error carries its kind (a port in use is
// errkind.AddressInUse), as the receiver's own listen does.
func Listen(addr string) (net.Listener, error) {
	ln, err := dial.Listen(addr)
	if err != nil {
		return nil, WithKind(fmt.Errorf("listening on %s: %w", addr, err))
	}
	return ln, nil
}

// WithKind returns err with the kind of the operating system's or the
// network's error it wraps, if any; err as it is otherwise.
func WithKind(err error) error {
	if err == nil {
		return nil
	}
	for _, r := range osRules {
		if r.fits(err) {
			return errkind.Wrap(r.kind, err)
		}
	}
	return err
}

// KindOf is err's kind, the engine's rules included.
func KindOf(err error) errkind.Kind { return errkind.Of(WithKind(err)) }

func is(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// unreachable reports a dial that nobody answered, or a name that did not
// resolve.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns) || platform.IsUnreachable(err)
}

// streamFailed reports a read or write on a connection that failed.
func streamFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && (op.Op == "read" || op.Op == "write")
}
