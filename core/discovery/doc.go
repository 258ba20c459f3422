// Package discovery finds Ferry receivers on the local network with
// multicast DNS service discovery (RFC 6762, RFC 6763). It speaks mDNS
// itself, on sockets it opens one per interface and address family, with
// github.com/miekg/dns for the packets; why not through
// github.com/grandcat/zeroconf is below.
//
// # What is advertised
//
// A waiting receiver advertises the service type _ferry._tcp in the local
// domain, as plain DNS-SD that avahi, Bonjour and python-zeroconf can
// browse. Its instance name is the device name followed by the first
// group of its key fingerprint, "Zoë's laptop (K7QX)": cleaned of control
// characters, cut to one DNS label (63 bytes), and unique per key, because
// Ferry's responder does no name conflict resolution. The TXT record
// carries the truth:
//
//	v=2                      protocol version (ProtocolVersion)
//	name=Zoë's laptop        device name, UTF-8, up to 250 bytes
//	fp=K7QX-M2PA-9RTE-WD4C   fingerprint of the static key (core/secure)
//
// The fingerprint only helps a person pick a device; the handshake, not
// discovery, decides whom a sender talks to.
//
// These rules live in this package alone. Front ends that advertise and
// browse through a platform's own DNS-SD service instead (mobile:
// NsdManager, Bonjour) take them from here: TXTStrings and InstanceName
// say what to advertise, NewPeer reads what was found, all on raw
// strings.
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
// nothing but Expires. A receiver heard on several interfaces (two
// machines that share Wi-Fi and Ethernet) is listed once, with the
// addresses every interface heard, each dropping out when its own
// answers lapse.
//
// # One socket per interface: why Ferry does not use zeroconf's
//
// grandcat/zeroconf v1.0.0 (read from its source) opens one socket per
// address family, bound to the mDNS port on every interface at once, joins
// the group on each chosen interface, and picks the interface of every
// packet it sends with a control message (IP_PKTINFO, IPV6_PKTINFO)
// through golang.org/x/net. x/net builds that message only where it
// knows the kernel takes it: for IPv4 on Linux, Darwin and Solaris, for
// IPv6 on the Unix systems, on Windows never. Elsewhere the message is
// silently dropped and the packet leaves by the system's default
// multicast interface. So on a Windows machine with several adapters
// (Wi-Fi beside Hyper-V, WSL, Docker or a VPN, which often outrank
// Wi-Fi), and for IPv4 on FreeBSD, announcements, answers and queries all
// went out one adapter, often the wrong one, and nothing reported it.
// Running one zeroconf Server or Resolver per interface would not help:
// each still sends through a socket with no outgoing interface set, by
// the same control message. Its Resolver also failed outright when IPv6
// could be joined on no interface, even with IPv4 working.
//
// Ferry therefore opens its own socket for every interface and family
// (a link, links.go): bound to the mDNS port with SO_REUSEADDR (Go does
// that when given the group address, so avahi and Bonjour keep working
// beside it), joined to the group on that interface alone, and with that
// interface set once on the socket as its outgoing one
// (IP_MULTICAST_IF, IPV6_MULTICAST_IF), an option every system has.
// Packets carry no control message, sent or received, on any system; a
// datagram's link is the interface it arrived on, because Windows, macOS
// and the BSDs deliver a multicast datagram only to sockets that joined
// its group on that interface, and Linux does the same once
// IP_MULTICAST_ALL is off on the socket (links_linux.go). So the tests,
// which run on Linux in network namespaces with several links, run the
// code Windows and FreeBSD run. Windows itself cannot be shown here:
// under Wine 8.0 Go cannot open any UDP socket (net's SIO_UDP_NETRESET
// ioctl is unimplemented there, WSAEOPNOTSUPP), so every interface is
// reported and Advertise and Browse fail with those reasons, which is
// the path a real failure takes too.
//
// A family is used on an interface that has an address of it: IPv4 an
// IPv4 address, IPv6 a link-local one (Linux's lo has neither IPv6
// multicast nor a link-local address). Each link answers with its own
// interface's addresses only, so a browser is told addresses it can
// reach, and an IPv6 link-local address gets the zone of the interface
// its answer came in on.
//
// # Interfaces that cannot carry mDNS
//
// An interface without multicast (Linux's "multicast off", Windows's
// IP_ADAPTER_NO_MULTICAST, both a missing net.FlagMulticast; most VPN
// tunnels), or where opening, joining or choosing the interface fails, is
// reported once per family through OnSkip and skipped; so is a link's
// first failed send (a firewall's "operation not permitted", an
// unreachable network), though the link stays open since such failures
// often pass. Advertise and Browse fail only when no link opens at all,
// with every interface's reason. A front end shows the reports: the CLI
// as information, or as a warning for an interface named with --iface.
//
// # What Ferry's mDNS does
//
//   - The responder answers PTR queries for _ferry._tcp.local. and for
//     service enumeration, SRV, TXT and ANY for its instance, A, AAAA and
//     ANY for its host, with the rest of the set as additional records.
//     It answers by unicast a question with the QU bit and a query from a
//     port other than 5353 (a legacy resolver, which gets its question
//     and id back), by multicast on the query's link otherwise. It does
//     no probing, conflict resolution, known-answer suppression or random
//     answer delay: the instance name is unique per key, and queries are
//     rare (one browse asks three times in its first 30 s).
//   - It announces the full set on every link twice, a second apart
//     (RFC 6762 section 8.3), and on Close sends it once more with TTL 0,
//     a goodbye. A lost goodbye leaves the entry to expire.
//   - Every record has a TTL of 120 s, RFC 6762's figure for address
//     records, so a receiver that vanished without a goodbye lapses within
//     two minutes everywhere; browsers re-ask well before.
//   - A browse queries on every link at once, again after a second, then
//     every 30 s. It reads a receiver from a response only when the
//     packet holds its SRV, TXT and at least one address of its host, as
//     responders send them together, so a partial answer never replaces a
//     complete one. Responses and queries are peer input; nothing that
//     does not parse reaches a caller, and nothing panics (fuzzed).
//   - A record miekg/dns cannot read costs only that record, not the
//     packet (unpack.go): python-zeroconf, behind many devices, puts an
//     NSEC that miekg/dns rejects in every answer, and zeroconf's
//     Resolver, which dropped the whole packet, never saw such devices.
//   - Names and TXT strings pass through miekg/dns's presentation format:
//     on the way out a backslash escapes and a dot splits labels; on the
//     way in, bytes outside printable ASCII come back as \DDD. Advertise
//     escapes, and Browse unescapes before it reads anything; the rules
//     above work on raw strings.
//   - Loopback addresses are announced only on a loopback interface,
//     which someone named on purpose (tests, two instances on one
//     machine). Multicast loopback is on, so such instances hear each
//     other.
//
// # Interfaces
//
// Ifaces names the interfaces to use; none means every interface that is
// up, leaving out loopback interfaces without multicast (Linux's lo; name
// it to use it). An unknown name is an error that lists the interfaces
// that exist. Tests never use the machine's real interfaces: they run in
// network namespaces (see tests/netns and star_test.go), or on lo.
package discovery

// Service is the DNS-SD service type Ferry receivers advertise.
const Service = "_ferry._tcp"

// ProtocolVersion is the version this build advertises in TXT "v". A peer
// with another Version is listed, but cannot be talked to.
const ProtocolVersion = 2
