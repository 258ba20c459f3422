package ui

import "github.com/ferry-project/ferry/core/app/nearby"

// LocalHosts lists this device's addresses that another device on the LAN
// could dial, as nearby.HostAddrs finds them: interfaces that are up,
// IPv4 before IPv6, no loopback unless named, no IPv6 link-local. With
// ifaces set, only those interfaces count, loopback included, so tests
// can use "lo". The GUI also leaves out IPv4 link-local (169.254.0.0/16)
// addresses: the first host goes into the QR code, and a phone on the LAN
// would rarely reach a self-assigned one.
func LocalHosts(ifaces []string) []string {
	ips, err := nearby.HostAddrs(ifaces)
	if err != nil {
		return nil
	}
	var out []string
	for _, ip := range ips {
		if !ip.IsLinkLocalUnicast() {
			out = append(out, ip.String())
		}
	}
	return out
}
