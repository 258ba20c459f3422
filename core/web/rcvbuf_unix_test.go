//go:build unix

package web

import "syscall"

// smallReceiveBuffer makes a socket's receive buffer a few KiB, so that
// a client that reads nothing holds the server's writes soon.
func smallReceiveBuffer(fd uintptr) error {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
}
