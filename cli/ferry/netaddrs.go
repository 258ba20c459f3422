package main

import (
	"net"
	"strconv"
	"strings"

	"github.com/ferry-project/ferry/core/app/nearby"
)

// shownAddrs returns the IP addresses a receiver tells people to use
// (nearby.ShownAddrs), IPv4 link-local ones included.
func shownAddrs(listenHost string, ifaces []string) []string {
	return nearby.ShownAddrs(listenHost, ifaces, false)
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
	if name, known := nearby.UnknownIface(names); name != "" {
		return usagef("this device has: "+strings.Join(known, ", "), "no network interface %q", name)
	}
	return nil
}
