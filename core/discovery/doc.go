// Package discovery finds Ferry receivers on the local network with
// multicast DNS service discovery (RFC 6762, RFC 6763), through
// github.com/grandcat/zeroconf v1.0.0.
//
// # What is advertised
//
// A waiting receiver advertises the service type _ferry._tcp in the local
// domain, as plain DNS-SD that avahi, Bonjour and python-zeroconf can
// browse. Its instance name is the device name followed by the first
// group of its key fingerprint, "Zoë's laptop (K7QX)": cleaned of control
// characters, cut to one DNS label (63 bytes), and unique per key, because
// zeroconf v1.0.0 does no name conflict resolution. The TXT record carries
// the truth:
//
//	v=2                      protocol version (ProtocolVersion)
//	name=Zoë's laptop        device name, UTF-8, up to 250 bytes
//	fp=K7QX-M2PA-9RTE-WD4C   fingerprint of the static key (core/secure)
//
// The fingerprint only helps a person pick a device; the handshake, not
// discovery, decides whom a sender talks to.
//
// These rules live in this package alone. Front ends that advertise and
// browse through a platform's own DNS-SD service instead of zeroconf
// (mobile: NsdManager, Bonjour) take them from here: TXTStrings and
// InstanceName say what to advertise, NewPeer reads what was found, all
// on raw strings.
//
// # What a browse reports
//
// TXT records are peer input. A browse never rejects a peer: it skips
// strings it cannot read, keeps the first of repeated keys, and leaves a
// field zero when its value is unusable (Version 0 = missing or garbled,
// Fingerprint "" = missing or not a fingerprint, Name falls back to the
// instance name). So a device with an unsupported version is still listed,
// with its Version, and a front end can say "incompatible version" instead
// of hiding it. Names come back as valid UTF-8 with no control or format
// characters, safe to print to a terminal.
//
// A peer's entry lives for the TTL its records carry, capped at 120 s,
// and is renewed each time the peer answers; the browse re-asks every 30
// s, so a live peer never lapses, and a vanished one lingers at most 120 s.
// A goodbye (the records again with TTL 0, sent by Advertiser.Close)
// removes it at once. OnChange does not fire for a renewal that changes
// nothing but Expires.
//
// # What zeroconf v1.0.0 does (read from its source)
//
//   - A Resolver reports each instance once per Browse call: its loop
//     remembers what it sent and never sends a refresh. It also stops
//     re-querying after the first answer. Hence Browse runs in rounds, a
//     fresh Resolver each (one Resolver per round: its sockets close when
//     its context ends, so it cannot be reused).
//   - Goodbyes (TTL 0) are swallowed: the Resolver forgets the instance
//     and tells nobody. Browse listens for them on a socket of its own.
//   - The ServiceEntry.TTL is that of whichever PTR, SRV or TXT record the
//     packet listed last; address records' TTLs are not exposed. A
//     zeroconf Server sends 3200 s on PTR/SRV/TXT and 120 s on A/AAAA,
//     which is why lifetimes are capped at 120 s.
//   - Server.TTL writes a field the server's goroutines read without a
//     lock (a data race under -race), so Ferry cannot shorten its TTL.
//   - The Resolver sends entries on an unbuffered channel with no way out:
//     a caller that stops reading before the library closes the channel
//     leaks its goroutine. Browse always drains to the close, and never
//     closes the channel itself.
//   - With several interfaces, a Server advertises the union of all their
//     addresses on every one of them, so a browser may see addresses it
//     cannot reach; Peer.Dial tries each in turn with its own timeout. The
//     Resolver does not say which interface an answer came in on, so an
//     IPv6 link-local address is dialled once per browsed interface.
//   - Resolver sockets bind 0.0.0.0:5353 and [::]:5353 with SO_REUSEADDR,
//     so they coexist with avahi-daemon and with each other.
//   - Server.Shutdown sends the goodbye once (it may be lost: then the
//     entry expires) and does not stop the announcement goroutine, which
//     may live on for up to about 3 s after Close, writing to closed
//     sockets harmlessly.
//   - Register drops loopback addresses, so advertising on lo alone fails;
//     Advertise uses RegisterProxy with addresses it lists itself.
//   - zeroconf logs "no suitable IPv6 interface" through the standard log
//     package when an interface has no IPv6.
//   - Names and TXT strings pass through miekg/dns's presentation format:
//     on the way out a backslash escapes and a dot splits labels; on the
//     way in, bytes outside printable ASCII come back as \DDD. Advertise
//     escapes, and Browse unescapes before it reads anything; the rules
//     above work on raw strings.
//
// # Interfaces
//
// Ifaces names the interfaces to use; none means every interface that is
// up and multicast-capable. An unknown name is an error that lists the
// interfaces that exist. Tests never use the machine's real interfaces:
// they run in network namespaces (see tests/netns).
package discovery

// Service is the DNS-SD service type Ferry receivers advertise.
const Service = "_ferry._tcp"

// ProtocolVersion is the version this build advertises in TXT "v". A peer
// with another Version is listed, but cannot be talked to.
const ProtocolVersion = 2
