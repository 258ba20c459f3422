package discovery

import (
	"fmt"
	"net"
	"slices"
	"strings"
)

// interfaces resolves interface names. No names means every interface
// that is up and multicast-capable, the same set zeroconf would pick.
// An unknown name is an error that lists the names that exist.
func interfaces(names []string) ([]net.Interface, error) {
	all, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %w", err)
	}
	if len(names) == 0 {
		var out []net.Interface
		for _, ifi := range all {
			if ifi.Flags&net.FlagUp != 0 && ifi.Flags&net.FlagMulticast != 0 {
				out = append(out, ifi)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no network interface is up and multicast-capable")
		}
		return out, nil
	}
	var out []net.Interface
	for _, name := range names {
		ifi, err := net.InterfaceByName(name)
		if err != nil {
			known := make([]string, len(all))
			for i, a := range all {
				known[i] = a.Name
			}
			return nil, fmt.Errorf("unknown network interface %q (have: %s)", name, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(out, func(o net.Interface) bool { return o.Index == ifi.Index }) {
			out = append(out, *ifi)
		}
	}
	return out, nil
}

// zoneNames are the interfaces an IPv6 link-local address may be reached
// through: all of them but loopback.
func zoneNames(ifaces []net.Interface) []string {
	var out []string
	for _, ifi := range ifaces {
		if ifi.Flags&net.FlagLoopback == 0 {
			out = append(out, ifi.Name)
		}
	}
	return out
}

// localAddrs lists the unicast addresses of ifaces to advertise, IPv4
// first. Loopback addresses are kept only on a loopback interface, which
// someone chose on purpose (tests, or two instances on one machine).
func localAddrs(ifaces []net.Interface) ([]string, error) {
	var v4, v6 []string
	for _, ifi := range ifaces {
		addrs, err := ifi.Addrs()
		if err != nil {
			return nil, fmt.Errorf("listing addresses of %s: %w", ifi.Name, err)
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsUnspecified() || ipn.IP.IsMulticast() {
				continue
			}
			if ipn.IP.IsLoopback() && ifi.Flags&net.FlagLoopback == 0 {
				continue
			}
			if ip4 := ipn.IP.To4(); ip4 != nil {
				v4 = append(v4, ip4.String())
			} else {
				v6 = append(v6, ipn.IP.String())
			}
		}
	}
	out := slices.Compact(slices.Concat(v4, v6))
	if len(out) == 0 {
		return nil, fmt.Errorf("no addresses on %s", ifaceNames(ifaces))
	}
	return out, nil
}

func ifaceNames(ifaces []net.Interface) string {
	s := make([]string, len(ifaces))
	for i, ifi := range ifaces {
		s[i] = ifi.Name
	}
	return strings.Join(s, ", ")
}
