// Package nearby finds Ferry receivers on the local network, as a front
// end sees them: it browses (Browse, FindPeer, ListPeers), reads another
// DNS-SD browser's answer (NewPeer) and says what a receiver advertises
// (Advertisement), on core/discovery's mDNS; and it makes and reads the
// link a receiver shows, which names it without discovery (PageLink,
// ParseLink). A Peer is a receiver as a browse last saw it; it names no
// type of core/discovery, and what it holds came from the network, so
// nothing here trusts it: whether a Peer is a trusted device is
// core/app's question (Node.TrustOf).
//
// The list of receivers nearby that a front end shows is a Receiver
// each: List merges what Ferry's own browse hears with what a platform's
// DNS-SD browser reports (Reported), keyed by instance name and sorted,
// and TrustWords says how one relates to the trusted devices, so that
// every front end lists them alike and only renders.
//
// A Node browses on its own interfaces with Node.Browse; the functions
// here browse without one.
package nearby

import (
	"context"
	"net"
	"time"

	"github.com/ferry-project/ferry/core/discovery"
)

// ServiceType is the DNS-SD service type Ferry receivers advertise and
// senders browse for.
const ServiceType = discovery.Service

// ProtocolVersion is the protocol version this build advertises and
// speaks: a Peer with another Version is listed, but cannot be talked to.
const ProtocolVersion = discovery.ProtocolVersion

// Peer is one advertised Ferry receiver as a browse last saw it, or as
// NewPeer read another DNS-SD browser's answer.
type Peer struct {
	Instance    string // DNS-SD instance name
	Name        string // device name, as advertised
	Fingerprint string // fingerprint of its key, as advertised ("" when it gave none)
	Version     int    // protocol version it advertises
	Host        string // advertised host name
	Port        int
	Addrs       []net.IP  // every address heard lately, IPv4 first
	Expires     time.Time // when a browse drops it unless heard again

	// seen is the browse's own entry, which knows the interfaces an IPv6
	// link-local address may be reached through; its exported fields are
	// overwritten by Peer's (engine) so that a front end's edit counts.
	seen discovery.Peer
}

func peerOf(d discovery.Peer) Peer {
	return Peer{Instance: d.Instance, Name: d.Name, Fingerprint: d.Fingerprint, Version: d.Version,
		Host: d.Host, Port: d.Port, Addrs: d.Addrs, Expires: d.Expires, seen: d}
}

func peersOf(ds []discovery.Peer) []Peer {
	if ds == nil {
		return nil
	}
	out := make([]Peer, len(ds))
	for i, d := range ds {
		out[i] = peerOf(d)
	}
	return out
}

func (p Peer) engine() discovery.Peer {
	d := p.seen
	d.Instance, d.Name, d.Fingerprint, d.Version = p.Instance, p.Name, p.Fingerprint, p.Version
	d.Host, d.Port, d.Addrs, d.Expires = p.Host, p.Port, p.Addrs, p.Expires
	return d
}

// Compatible says whether this build can talk to p.
func (p Peer) Compatible() bool { return p.Version == ProtocolVersion }

// DialAddrs returns host:port for every address, IPv4 first; an IPv6
// link-local address comes once per interface a browse may have heard
// it on, with that interface as its zone.
func (p Peer) DialAddrs() []string { return p.engine().DialAddrs() }

// String is the form used in errors and listings:
// "Zoë's laptop (K7QX-M2PA-9RTE-WD4C) at 10.0.0.2:4711".
func (p Peer) String() string { return p.engine().String() }

// NewPeer reads a resolved service as a browse would, for a front end
// that relays another DNS-SD browser's results (a phone's NsdManager or
// NWBrowser): instance and host raw as on the wire, txt its TXT strings,
// raw key=value. All of it is peer input: NewPeer never fails and never
// panics (core/discovery's NewPeer says what it keeps).
func NewPeer(instance, host string, txt []string) Peer {
	return peerOf(discovery.NewPeer(instance, host, txt))
}

// Advertisement is what a receiver named name, with the key fingerprint
// fp, advertises: its DNS-SD instance name and TXT strings (raw
// key=value, each fitting a TXT string), for a front end that advertises
// with its platform's DNS-SD service.
func Advertisement(name, fp string) (instance string, txt []string) {
	return discovery.InstanceName(name, fp), discovery.TXTStrings(name, fp)
}

// BrowseConfig says where to browse and whom to tell.
type BrowseConfig struct {
	// Ifaces are the interfaces to browse on; nil is every
	// multicast-capable one.
	Ifaces []string
	// OnChange gets the whole current list whenever it changes, sorted
	// by Name then Fingerprint, from the browse's goroutine, one call at
	// a time, at most ten times a second and at most 256 receivers (a
	// flood of made-up ones stays bounded: core/discovery); the slice is
	// the callee's to keep.
	OnChange func([]Peer)
	// OnSkip, if set, is told once per interface and address family that
	// cannot carry mDNS; the browse goes on with the others.
	OnSkip func(iface string, err error)
}

func (c BrowseConfig) engine() discovery.BrowseConfig {
	d := discovery.BrowseConfig{Ifaces: c.Ifaces, OnSkip: c.OnSkip}
	if c.OnChange != nil {
		d.OnChange = func(ps []discovery.Peer) { c.OnChange(peersOf(ps)) }
	}
	return d
}

// Browse looks for receivers on the network until ctx ends (core/
// discovery's Browse), without a Node: a front end that browses on
// interfaces of its own choosing.
func Browse(ctx context.Context, cfg BrowseConfig) error {
	return discovery.Browse(ctx, cfg.engine())
}

// FindPeer browses until exactly one receiver matches nameOrFingerprint
// (the rule people also name trusted devices by) and no other has
// appeared shortly after, or until ctx ends. Finding none is an error
// that lists what it did see; finding several, one that lists the
// candidates.
func FindPeer(ctx context.Context, ifaces []string, nameOrFingerprint string, onSkip func(iface string, err error)) (Peer, error) {
	d, err := discovery.Find(ctx, ifaces, nameOrFingerprint, onSkip)
	if err != nil {
		return Peer{}, err
	}
	return peerOf(d), nil
}

// ListPeers browses for wait and returns the receivers present at the
// end; if ctx ends first, what it saw with ctx's error.
func ListPeers(ctx context.Context, ifaces []string, wait time.Duration, onSkip func(iface string, err error)) ([]Peer, error) {
	ds, err := discovery.List(ctx, ifaces, wait, onSkip)
	return peersOf(ds), err
}

// HostAddrs lists this device's addresses that a peer could dial:
// interfaces that are up (those named, when ifaces is not nil), IPv4
// first, no loopback unless named, no IPv6 link-local.
func HostAddrs(ifaces []string) ([]net.IP, error) { return discovery.HostAddrs(ifaces) }

// TXTForms is a TXT record (Advertisement's) in the two forms a
// platform's DNS-SD service takes: a JSON object of strings (Android's
// attributes) and DNS wire bytes (iOS).
func TXTForms(txt []string) (js string, record []byte) {
	return discovery.TXTJSON(txt), discovery.TXTRecord(txt)
}

// ShownAddrs lists the addresses a receiver tells people to type, or
// puts in a QR code: listenHost when it names one, or else this
// device's addresses as HostAddrs lists them, IPv4 only when listenHost
// is 0.0.0.0 (which takes no IPv6). noLinkLocal also leaves out IPv4
// link-local (169.254.0.0/16) addresses, for a front end whose first
// address goes into a QR code: a phone on the LAN would rarely reach a
// self-assigned one.
func ShownAddrs(listenHost string, ifaces []string, noLinkLocal bool) []string {
	if ip := net.ParseIP(listenHost); listenHost != "" && (ip == nil || !ip.IsUnspecified()) {
		return []string{listenHost}
	}
	v4only := listenHost == "0.0.0.0"
	ips, err := HostAddrs(ifaces)
	if err != nil {
		return nil
	}
	var out []string
	for _, ip := range ips {
		if (ip.To4() != nil || !v4only) && !(noLinkLocal && ip.IsLinkLocalUnicast()) {
			out = append(out, ip.String())
		}
	}
	return out
}

// UnknownIface returns the first of names that is no network interface
// of this device, with the names it has, for a front end to say so
// before anything starts; "" when every name is one.
func UnknownIface(names []string) (name string, known []string) {
	for _, name := range names {
		if _, err := net.InterfaceByName(name); err != nil {
			if all, err := net.Interfaces(); err == nil {
				for _, ifc := range all {
					known = append(known, ifc.Name)
				}
			}
			return name, known
		}
	}
	return "", nil
}
