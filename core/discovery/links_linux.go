package discovery

import (
	"net"

	"golang.org/x/sys/unix"
)

// ownGroupsOnly turns off Linux's IP_MULTICAST_ALL (and its IPv6 twin),
// which is on by default and hands a socket bound to the wildcard address
// every multicast datagram for any group any socket joined, on any
// interface. Off, a link's socket gets only what arrives on its own
// interface, as on Windows, macOS and the BSDs, which filter by the
// socket's own memberships. So a datagram's link says which interface it
// came in on, everywhere, without a control message.
func ownGroupsOnly(c *net.UDPConn, v6 bool) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	level, opt := unix.IPPROTO_IP, unix.IP_MULTICAST_ALL
	if v6 {
		level, opt = unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_ALL
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), level, opt, 0)
	}); err != nil {
		return err
	}
	if serr == unix.ENOPROTOOPT {
		// A kernel older than 4.20 lacks IPV6_MULTICAST_ALL: a datagram
		// may then reach every link, and be answered on each, which is
		// redundant but harmless.
		return nil
	}
	return serr
}
