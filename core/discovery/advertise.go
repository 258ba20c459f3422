package discovery

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/grandcat/zeroconf"
)

// AdvertiseConfig says what a receiver advertises and where.
type AdvertiseConfig struct {
	Name, Fingerprint string
	Port              int
	Ifaces            []string // interface names; empty = all multicast-capable interfaces
}

// Advertiser answers mDNS queries for one receiver until Close.
type Advertiser struct {
	srv  *zeroconf.Server
	once sync.Once
}

// Advertise starts announcing a receiver listening on cfg.Port. The
// instance name is the device name with the fingerprint's first group
// ("Zoë's laptop (K7QX)"); the full name, fingerprint and protocol version
// are in TXT. The advertised addresses are those of every chosen
// interface, and every chosen interface hears all of them.
func Advertise(cfg AdvertiseConfig) (*Advertiser, error) {
	name := cleanName(cfg.Name, maxNameBytes)
	if name == "" {
		return nil, errors.New("advertising: empty device name")
	}
	fp := canonicalFingerprint(cfg.Fingerprint)
	if fp == "" {
		return nil, fmt.Errorf("advertising: %q is not a key fingerprint", cfg.Fingerprint)
	}
	if cfg.Port <= 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("advertising: port %d out of range", cfg.Port)
	}
	ifaces, err := interfaces(cfg.Ifaces)
	if err != nil {
		return nil, fmt.Errorf("advertising: %w", err)
	}
	addrs, err := localAddrs(ifaces)
	if err != nil {
		return nil, fmt.Errorf("advertising: %w", err)
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("advertising: host name: %w", err)
	}
	// The host name becomes the SRV target, a DNS name: keep it to one
	// plain label.
	host = strings.Map(func(r rune) rune {
		if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, strings.Split(host, ".")[0])
	if host == "" {
		host = "ferry"
	}
	// RegisterProxy rather than Register: Register drops loopback
	// addresses, so advertising on lo alone fails, and it picks addresses
	// by its own rules.
	srv, err := zeroconf.RegisterProxy(escapePresentation(InstanceName(name, fp)), Service, "local.",
		cfg.Port, host, addrs, escapeTXT(TXTStrings(name, fp)), ifaces)
	if err != nil {
		return nil, fmt.Errorf("advertising on %s: %w", ifaceNames(ifaces), err)
	}
	return &Advertiser{srv: srv}, nil
}

// Close sends a goodbye (the records again with TTL 0) and stops
// answering. It is safe to call more than once.
func (a *Advertiser) Close() {
	a.once.Do(a.srv.Shutdown)
}
