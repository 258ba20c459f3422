// Package netsrc says where a connection comes from, for the per-source
// limits of core/transfer (pending handshakes) and core/web (page
// connections and WebSockets).
//
// # Buckets
//
// An IPv4 source is its address. An IPv6 source is its full address,
// with its zone for a link-local one (fe80::1%eth0 and fe80::1%wlan0 are
// two hosts): every SLAAC host of a LAN shares one /64, and every
// link-local address of a link shares fe80::/64, so a /64 bucket would
// put an honest sender in the flooder's. One IPv6 host can use a whole
// /64, though, so callers add a second, larger cap per /64 (Net) above
// the per-address one (Host). A connection whose address is not an IP
// (a test's pipe) is its own source, named by its String.
package netsrc

import (
	"net"
	"net/netip"
)

// Source is a connection's buckets.
type Source struct {
	// Host is the IPv4 address, or the IPv6 address with its zone.
	Host string
	// Net is the IPv6 /64 (with the zone of a link-local address, whose
	// /64 is the same on every link); empty for IPv4 and non-IP
	// addresses, which have no wider bucket.
	Net string
}

// Of returns the buckets of a remote address: a *net.TCPAddr, or any
// net.Addr whose String is an IP address and a port (a WebSocket wrapped
// as a net.Conn reports the peer's host:port).
func Of(a net.Addr) Source {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ofIP(ta.AddrPort().Addr())
	}
	return OfHostPort(a.String())
}

// OfHostPort is Of for an address as a string, host:port (an
// http.Request's RemoteAddr).
func OfHostPort(s string) Source {
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return Source{Host: s}
	}
	return ofIP(ap.Addr())
}

func ofIP(ip netip.Addr) Source {
	ip = ip.Unmap()
	if !ip.Is6() {
		return Source{Host: ip.String()}
	}
	n := netip.PrefixFrom(ip.WithZone(""), 64).Masked().String()
	if z := ip.Zone(); z != "" {
		n += "%" + z
	}
	return Source{Host: ip.String(), Net: n}
}
