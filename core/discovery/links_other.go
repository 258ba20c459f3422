//go:build !linux

package discovery

import "net"

// ownGroupsOnly has nothing to do outside Linux: Windows, macOS and the
// BSDs deliver a multicast datagram only to the sockets that joined its
// group on the interface it arrived on.
func ownGroupsOnly(*net.UDPConn, bool) error { return nil }
