package discovery

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/grandcat/zeroconf"

	"github.com/ferry-project/ferry/core/secure"
)

// AdvertiseConfig says what a receiver advertises and where.
type AdvertiseConfig struct {
	Name, Fingerprint string
	Port              int
	Ifaces            []string // interface names; empty = every interface that is up
	// OnSkip, if set, is told once per interface and address family that
	// cannot carry mDNS; the others still advertise. It is called from
	// Advertise only.
	OnSkip SkipFunc
}

// Advertiser answers mDNS queries for one receiver until Close: a
// zeroconf Server, and what Ferry keeps around it.
type Advertiser struct {
	server *zeroconf.Server
	once   sync.Once
}

// Advertise starts announcing a receiver listening on cfg.Port. The
// instance name is the device name with the fingerprint's first group
// ("Zoë's laptop (K7QX)"); the full name, fingerprint and protocol version
// are in TXT. Every interface announces, and answers with, the addresses
// of all the interfaces advertised on. Interfaces that cannot carry mDNS
// are reported through cfg.OnSkip and left out; Advertise fails only if
// none can.
func Advertise(cfg AdvertiseConfig) (*Advertiser, error) {
	name := cleanName(cfg.Name, maxNameBytes)
	if name == "" {
		return nil, errors.New("advertising: empty device name")
	}
	fp := secure.CanonicalFingerprint(cfg.Fingerprint)
	if fp == "" {
		return nil, fmt.Errorf("advertising: %q is not a key fingerprint", cfg.Fingerprint)
	}
	if cfg.Port <= 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("advertising: port %d out of range", cfg.Port)
	}
	sel, err := choose(cfg.Ifaces, map[joinKey]error{}, newReporter(cfg.OnSkip))
	if err != nil {
		return nil, fmt.Errorf("advertising: %w", err)
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("advertising: host name: %w", err)
	}
	ips := make([]string, len(sel.addrs))
	for i, ip := range sel.addrs {
		ips[i] = ip.String()
	}
	// RegisterProxy, not Register: Register would take the host name as
	// it stands (dots, spaces and all, unbounded) and leave out loopback
	// addresses even on a loopback interface someone named.
	s, err := zeroconf.RegisterProxy(escapePresentation(InstanceName(name, fp)), Service, "local.",
		cfg.Port, hostLabel(host), ips, escapeTXT(TXTStrings(name, fp)), sel.ifaces)
	if err != nil {
		return nil, fmt.Errorf("advertising on %s: %w", ifaceNames(sel.ifaces), err)
	}
	return &Advertiser{server: s}, nil
}

// Close sends a goodbye (the records again with TTL 0) on every interface
// and stops answering. It is safe to call more than once. The goodbye may
// be lost; Ferry's browsers drop the receiver two rounds later anyway.
func (a *Advertiser) Close() {
	a.once.Do(a.server.Shutdown)
}

// hostLabel makes the host name the SRV target: one DNS label of letters,
// digits and dashes, at most 63 bytes. Every name zeroconf sends must pack:
// one that does not (a label over 63 bytes: Linux allows 64-byte host
// names) fails every packet silently, and then the goodbye in Shutdown,
// which makes Shutdown return before it closes anything, leaving the
// Server's sockets and goroutines for good (guard_test.go shows it). The
// instance name and TXT strings are bounded by InstanceName and
// TXTStrings.
func hostLabel(host string) string {
	label := strings.Map(func(r rune) rune {
		if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, strings.Split(host, ".")[0])
	label = strings.Trim(label[:min(len(label), maxInstanceBytes)], "-")
	if label == "" {
		return "ferry"
	}
	return label
}
