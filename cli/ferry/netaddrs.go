package main

import (
	"net"
	"strconv"
	"strings"

	"github.com/ferry-project/ferry/core/app/nearby"
)

// shownAddrs returns the IP addresses a receiver tells people to use:
// the --listen host when it names one, or else this device's addresses as
// nearby.HostAddrs lists them (interfaces that are up, IPv4 first, no
// loopback unless named with --iface, no IPv6 link-local). A receiver
// listening on 0.0.0.0 takes IPv4 only, so it shows no IPv6 address.
func shownAddrs(listenHost string, ifaces []string) []string {
	if ip := net.ParseIP(listenHost); listenHost != "" && (ip == nil || !ip.IsUnspecified()) {
		return []string{listenHost}
	}
	v4only := listenHost == "0.0.0.0"
	ips, err := nearby.HostAddrs(ifaces)
	if err != nil {
		return nil
	}
	var out []string
	for _, ip := range ips {
		if ip.To4() != nil || !v4only {
			out = append(out, ip.String())
		}
	}
	return out
}

// joinPort renders addresses as host:port for people to type.
func joinPort(addrs []string, port int) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = net.JoinHostPort(a, strconv.Itoa(port))
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
