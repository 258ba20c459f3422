package ui

import (
	"net"
	"slices"
)

// LocalHosts lists this device's addresses that another device on the LAN
// could dial: up, not loopback, IPv4 before IPv6, link-local v6 left out
// (it needs a zone a phone can't know). With ifaces set, only those
// interfaces count, loopback included, so tests can use "lo".
func LocalHosts(ifaces []string) []string {
	list, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var v4, v6 []string
	for _, ifc := range list {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		if len(ifaces) > 0 {
			if !slices.Contains(ifaces, ifc.Name) {
				continue
			}
		} else if ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsLinkLocalUnicast() {
				continue
			}
			if ip4 := ipn.IP.To4(); ip4 != nil {
				v4 = append(v4, ip4.String())
			} else {
				v6 = append(v6, ipn.IP.String())
			}
		}
	}
	return append(v4, v6...)
}
