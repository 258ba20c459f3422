package main

import (
	"net"
	"slices"
	"strings"
)

// shownAddrs returns the IP addresses a receiver tells people to use:
// the --listen host when it names one, or else every address of every
// interface that is up, IPv4 first. Loopback interfaces are left out
// unless named with --iface, and so are link-local IPv6 addresses, which
// nobody can type without a zone. With ifaces, only those interfaces count.
func shownAddrs(listenHost string, ifaces []string) []string {
	if ip := net.ParseIP(listenHost); listenHost != "" && (ip == nil || !ip.IsUnspecified()) {
		return []string{listenHost}
	}
	v4only := listenHost == "0.0.0.0"
	all, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var v4, v6 []string
	for _, ifc := range all {
		named := slices.Contains(ifaces, ifc.Name)
		if len(ifaces) > 0 && !named || ifc.Flags&net.FlagUp == 0 ||
			ifc.Flags&net.FlagLoopback != 0 && !named {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsLinkLocalUnicast() && ipn.IP.To4() == nil {
				continue
			}
			if ipn.IP.To4() != nil {
				v4 = append(v4, ipn.IP.String())
			} else if !v4only {
				v6 = append(v6, ipn.IP.String())
			}
		}
	}
	return append(v4, v6...)
}

// joinPort renders addresses as host:port for people to type.
func joinPort(addrs []string, port int) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = net.JoinHostPort(a, itoa(port))
	}
	return out
}

// checkIfaces makes an unknown --iface a usage error, found before
// anything starts, with the names that exist as the hint.
func checkIfaces(names []string) error {
	for _, name := range names {
		if _, err := net.InterfaceByName(name); err != nil {
			var known []string
			if all, err := net.Interfaces(); err == nil {
				for _, ifc := range all {
					known = append(known, ifc.Name)
				}
			}
			return usagef("this device has: "+strings.Join(known, ", "), "no network interface %q", name)
		}
	}
	return nil
}
