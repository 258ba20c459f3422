//go:build unix || js || wasip1

package platform

import (
	"errors"
	"syscall"
)

// IsNoSpace reports a full disk or an exhausted quota.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// IsAddrInUse reports a listening address that another socket holds.
func IsAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// IsUnreachable reports a connection that nobody answered: refused, or no
// route to the host or its network.
func IsUnreachable(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH)
}
