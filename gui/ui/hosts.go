package ui

import "github.com/ferry-project/ferry/core/app/nearby"

// LocalHosts lists this device's addresses that another device on the LAN
// could dial (nearby.ShownAddrs). With ifaces set, only those interfaces
// count, loopback included, so tests can use "lo". The GUI leaves out
// IPv4 link-local addresses: the first host goes into the QR code.
func LocalHosts(ifaces []string) []string { return nearby.ShownAddrs("", ifaces, true) }
