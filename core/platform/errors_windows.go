//go:build windows

package platform

import (
	"errors"
	"net"

	"golang.org/x/sys/windows"
)

// IsNoSpace reports a full disk or an exhausted quota. Windows reports
// them as ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL or
// ERROR_DISK_QUOTA_EXCEEDED, none of which syscall.ENOSPC matches.
func IsNoSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_DISK_QUOTA_EXCEEDED)
}

// IsAddrInUse reports a listening address that another socket holds
// (WSAEADDRINUSE), or one that Windows keeps for itself: listening on a
// port in a range that Hyper-V or WSL reserved fails with WSAEACCES, and
// the remedy, another port, is the same.
func IsAddrInUse(err error) bool {
	if errors.Is(err, windows.WSAEADDRINUSE) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "listen" && errors.Is(err, windows.WSAEACCES)
}

// IsUnreachable reports a connection that nobody answered: refused, or no
// route to the host or its network.
func IsUnreachable(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) || errors.Is(err, windows.WSAEHOSTUNREACH) ||
		errors.Is(err, windows.WSAENETUNREACH)
}
