package discovery

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grandcat/zeroconf"
)

// Peer is one advertised Ferry receiver as a browse last saw it.
type Peer struct {
	Instance    string // DNS-SD instance name
	Name        string // device name (TXT "name")
	Fingerprint string // fingerprint of its static key (TXT "fp"), like "K7QX-M2PA-9RTE-WD4C"
	Version     int    // protocol version (TXT "v")
	Host        string // advertised host name
	Port        int
	Addrs       []net.IP  // every address heard in the last two rounds, IPv4 first
	Expires     time.Time // when the entry is dropped unless heard again

	// zones are the interfaces an IPv6 link-local address may be reached
	// through: every browsed interface with IPv6 (selection.zones).
	zones []string
}

// DialAddrs returns host:port for every address, IPv4 first. An IPv6
// link-local address comes once per interface the browse ran IPv6 on,
// with that interface as its zone: zeroconf does not say which one the
// answer came in on, so a dialler tries each (with several, all but one
// fail fast or time out).
func (p Peer) DialAddrs() []string {
	port := strconv.Itoa(p.Port)
	var out []string
	for _, ip := range p.Addrs {
		if ip.To4() == nil && ip.IsLinkLocalUnicast() {
			for _, z := range p.zones {
				out = append(out, net.JoinHostPort(ip.String()+"%"+z, port))
			}
			if len(p.zones) > 0 {
				continue
			}
		}
		out = append(out, net.JoinHostPort(ip.String(), port))
	}
	return out
}

// label names the peer in errors: its name and fingerprint.
func (p Peer) label() string {
	if p.Fingerprint == "" {
		return fmt.Sprintf("%q", p.Name)
	}
	return fmt.Sprintf("%q (%s)", p.Name, p.Fingerprint)
}

// String is the form used in error messages and listings:
// "Zoë's laptop (K7QX-M2PA-9RTE-WD4C) at 10.0.0.2:4711".
func (p Peer) String() string {
	s := p.label()
	if addrs := p.DialAddrs(); len(addrs) > 0 {
		s += " at " + addrs[0]
	}
	return s
}

// NewPeer returns what a browse makes of a resolved service's names and
// TXT record, for a front end that relays another DNS-SD browser's
// results (a phone's NsdManager or NWBrowser) and wants them read as
// Browse reads them. instance and host are the service's instance and
// host names, raw as on the wire (not in any escaped form), and txt its
// TXT strings, raw key=value. All of it is peer input: NewPeer never
// fails and never panics.
//
//   - Name, Fingerprint and Version come from TXT "name", "fp" and "v".
//     Strings without a key are skipped, keys are case-insensitive and
//     the first of repeated keys wins; an unusable value leaves its field
//     zero (Version 0, Fingerprint ""); Name falls back to the instance
//     name.
//   - Instance, Name and Host are valid UTF-8 with control and format
//     characters turned into spaces, runs of space collapsed, trimmed and
//     bounded in length, so safe to print. Host loses its trailing dot.
//   - Fingerprint is canonical, "K7QX-M2PA-9RTE-WD4C".
//
// Port, Addrs and Expires are left for the caller to fill in.
func NewPeer(instance, host string, txt []string) Peer {
	info := parseTXT(txt)
	// An instance name is one label, 63 bytes, but cleaning turns each
	// invalid byte into U+FFFD, three: leave room, so no name is cut.
	p := Peer{
		Instance:    cleanName(instance, 4*maxInstanceBytes),
		Name:        info.Name,
		Fingerprint: info.Fingerprint,
		Version:     info.Version,
		Host:        strings.TrimSpace(strings.TrimSuffix(cleanName(host, 255), ".")),
	}
	if p.Name == "" {
		p.Name = p.Instance
	}
	return p
}

// peerFromEntry turns what zeroconf's Resolver resolved into a Peer.
// The entry is peer input: nothing in it is trusted beyond its syntax.
// zeroconf hands names and TXT strings over in miekg/dns's presentation
// form, escapes and all, which is undone before NewPeer reads them.
// zones are the interfaces an IPv6 link-local address in it may be
// reached through (selection.zones).
//
// ok is false for an entry that lists nothing to dial: zeroconf passes
// on an entry as soon as it has one address record, but an A record with
// empty data comes out of miekg/dns as a nil address, so an entry may
// hold only nil, unspecified or multicast addresses (guard_test.go shows
// it). It is false too for TTL 0, a goodbye, which zeroconf drops itself
// but which would otherwise list a peer that just left.
func peerFromEntry(e *zeroconf.ServiceEntry, zones []string) (Peer, bool) {
	if e == nil || e.TTL == 0 {
		return Peer{}, false
	}
	p := NewPeer(unescapePresentation(e.Instance), unescapePresentation(e.HostName), unescapeTXT(e.Text))
	p.Port = e.Port
	p.zones = zones
	for _, ip := range slices.Concat(e.AddrIPv4, e.AddrIPv6) {
		if len(ip) != net.IPv4len && len(ip) != net.IPv6len || ip.IsUnspecified() || ip.IsMulticast() {
			continue
		}
		if v4 := ip.To4(); v4 != nil {
			ip = v4
		}
		if !slices.ContainsFunc(p.Addrs, ip.Equal) {
			p.Addrs = append(p.Addrs, slices.Clone(ip))
		}
	}
	// IPv4 first, order otherwise as advertised.
	slices.SortStableFunc(p.Addrs, func(a, b net.IP) int {
		return boolInt(a.To4() == nil) - boolInt(b.To4() == nil)
	})
	return p, len(p.Addrs) > 0 && p.Port > 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// samePeer reports whether a and b show the same thing, Expires aside: a
// refresh that only extends the lifetime is not a change worth an update.
func samePeer(a, b Peer) bool {
	return a.Instance == b.Instance && a.Name == b.Name &&
		a.Fingerprint == b.Fingerprint && a.Version == b.Version &&
		a.Host == b.Host && a.Port == b.Port &&
		slices.EqualFunc(a.Addrs, b.Addrs, net.IP.Equal)
}
