package discovery

import (
	"fmt"
	"net"
	"slices"
)

// HostAddrs lists the addresses of this device that a front end shows a
// person, to type on or scan into another device. It is not what
// Advertise announces: mDNS keeps IPv6 link-local addresses, which a
// resolver can pair with the interface it heard them on.
//
// The list holds every address of every interface that is up, IPv4
// first (as 4-byte addresses), then IPv6, each in the order the system
// lists its interfaces. Left out are:
//
//   - loopback interfaces, unless ifaces names them (tests use "lo");
//   - IPv6 link-local addresses (fe80::/10), which nobody can dial without
//     a zone. IPv4 link-local addresses (169.254.0.0/16) need none and are
//     kept; a front end that does not want them drops them itself.
//
// With ifaces, only the interfaces so named count. A name that matches no
// interface adds nothing: front ends check names people give them before
// they get here, with the error they want to show. An interface whose
// addresses cannot be read adds nothing either. The error is for a system
// that cannot list its interfaces at all.
func HostAddrs(ifaces []string) ([]net.IP, error) {
	all, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %w", err)
	}
	var v4, v6 []net.IP
	for _, ifi := range all {
		named := slices.Contains(ifaces, ifi.Name)
		switch {
		case ifi.Flags&net.FlagUp == 0:
			continue
		case len(ifaces) > 0 && !named:
			continue
		case ifi.Flags&net.FlagLoopback != 0 && !named:
			continue
		}
		addrs, err := ifi.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			if ip4 := ipn.IP.To4(); ip4 != nil {
				v4 = append(v4, ip4)
			} else if !ipn.IP.IsLinkLocalUnicast() {
				v6 = append(v6, ipn.IP)
			}
		}
	}
	return append(v4, v6...), nil
}
