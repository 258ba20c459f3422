// Package discovery finds Ferry receivers on the local network with
// multicast DNS service discovery (RFC 6762, RFC 6763), on
// github.com/grandcat/zeroconf v1.0.0: a zeroconf Server advertises, a
// zeroconf Resolver browses. What is Ferry's is kept here around it: the
// TXT rules and instance naming, the list of receivers and how long an
// entry lives, the choice of interfaces, and guards where zeroconf gets
// something wrong that Ferry must not.
//
// # What is advertised
//
// A waiting receiver advertises the service type _ferry._tcp in the local
// domain, as plain DNS-SD that avahi, Bonjour and python-zeroconf can
// browse. Its instance name is the device name followed by the first
// group of its key fingerprint, "Zoë's laptop (K7QX)": cleaned of control
// characters, cut to one DNS label (63 bytes), and unique per key, because
// zeroconf's responder does no name conflict resolution. The TXT record
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
// strings, and txtforms.go converts them to and from the forms a
// platform takes and gives (a JSON object, DNS wire bytes). zeroconf takes and gives names and TXT strings in the escaped
// presentation form of miekg/dns, its packet library; Advertise escapes
// and Browse unescapes.
//
// Advertise calls zeroconf.RegisterProxy rather than Register, to give the
// host name as one clean label of at most 63 bytes and the addresses of
// the interfaces chosen, loopback ones included on a loopback interface
// someone named (tests, two instances on one machine). zeroconf announces
// twice at start, answers queries on every interface with all of those
// addresses, and sends a goodbye (TTL 0) on Close. Its records carry TTL
// 3200 s (120 s for addresses): other DNS-SD browsers keep a receiver
// that was killed until then; Ferry's own browse does not (Liveness).
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
// characters, safe to print to a terminal. An entry with no address that
// can be dialled, or port 0, is not listed. All of this is fuzzed
// (FuzzPeerFromEntry, FuzzParseTXT).
//
// A receiver is listed once, keyed by its instance name, with every
// address heard for it in the last two rounds: a receiver that shares two
// networks with the browser is one device with both addresses. zeroconf
// does not say which interface an answer came in on, so an IPv6
// link-local address is offered for dialling once per interface the
// browse runs IPv6 on (Peer.DialAddrs), and all but the right one fail.
//
// # Liveness
//
// zeroconf's Resolver tells its reader about an entry once per browse
// (client.go keeps sentEntries) and never that it went: a goodbye deletes
// the entry silently, and a receiver that was killed sends none. So
// Browse runs in rounds of 3 s (roundLength), each a new Resolver: a
// receiver answers every round, and one heard neither in the current
// round nor in the one before is dropped, checked 1 s into each round
// (settleWindow), when the round's answers are in. A receiver that stops
// or is killed right after answering leaves the list 7 s later
// (leaveAfter), and a single lost answer does not make one flicker.
// Peer.Expires says when an entry goes unless heard again.
//
// The cost, measured between two network namespaces over a minute:
// every round zeroconf's Resolver sends its PTR query twice at once (in
// Browse and at the start of its periodic query) per interface and
// family, and once more after 2 to 6 s while nothing answered: 40
// queries a minute per interface and family with a receiver present, 44
// without. Every zeroconf Server answers each query on both families, so
// each receiver sends 4 answers per round and family: 80 a minute per
// interface and family, about 250 bytes each. RFC 6762 asks otherwise:
// a querier's repeated queries at least 1 s apart and then at doubling
// intervals up to an hour (section 5.2), relying on record lifetimes and
// goodbyes to notice a departure, and a responder to multicast a record
// at most once a second per interface (section 6). Ferry trades that for
// a list that is live within seconds, and only while someone looks at
// one: ferry peers for its --timeout, ferry send while it picks a
// receiver, the app and the phone while their device list is open.
//
// # Under a flood
//
// Anyone on the network can answer with made-up receivers, thousands a
// round. A browse lists at most 256 (maxPeers): a newcomer to a full
// list takes the place of the receiver heard longest ago, unless every
// one listed was heard in the current round, and then waits for a later
// round; a real receiver, which answers each round's query at once, is
// not pushed out by names made up after it. Hearing a receiver costs no
// copy of the list, and the list goes to OnChange at most every 100 ms
// (listEvery), not once per name. Measured on lo with 4,000 spoofed
// receivers a round through zeroconf's Resolver (TestBrowseUnderFlood):
// before, the browse's goroutine was busy 3.1 s of each 3 s round,
// handed over 1,492 lists holding 2.2 million peers, listed 2,984 and
// took only 1,493 of the 4,000 answers (the rest overflowed the socket
// while it was busy); now it takes all 4,000 in 80 ms, hands over 5
// lists holding 1,008 peers, and lists 256, the real receiver among
// them.
//
// # What Ferry guards zeroconf against
//
// Read from zeroconf v1.0.0's source, and each shown by a test that runs
// zeroconf bare first (guard_test.go):
//
//   - A reader that stops reading strands it: the Resolver's loop sends
//     each entry on the channel without watching the context, so leaving
//     early would leave that goroutine and its sockets for good. A round
//     reads until zeroconf closes the channel.
//   - Its Resolver fails outright, leaking the IPv4 socket it opened, when
//     IPv6 joins on no interface although IPv4 works (an interface with an
//     MTU under 1280 has no IPv6). Ferry checks each interface and family
//     itself first (see below) and asks zeroconf only for the families
//     that work.
//   - It passes on an entry with an address record whose data is empty,
//     which miekg/dns reads as a nil address; such an entry is not listed.
//   - A name it cannot pack fails every packet silently and then
//     Shutdown, which returns before closing anything: every name Ferry
//     hands it packs (hostLabel, InstanceName, TXTStrings).
//   - miekg/dns refuses a whole packet over one record it cannot read,
//     and python-zeroconf (Debian's, Home Assistant's) puts an NSEC with
//     an empty bitmap block in every answer; nsec.go registers NSEC with
//     miekg/dns as an opaque record, the one place Ferry touches it.
//
// Nothing in zeroconf runs Ferry's code, so a panic in its goroutines
// could not be recovered from here. Reading v1.0.0 found none a packet
// can reach: its type assertions follow checks of the record type, and
// miekg/dns unpacks a record of a known type only into that type or
// fails the packet, which zeroconf then drops. zeroconf's start-up announcer is
// not stopped by Shutdown: it ends by itself within 3.5 s of Advertise,
// its last sends failing on closed sockets.
//
// # Interfaces that cannot carry mDNS
//
// zeroconf joins the group on every interface it is given, in both
// families, and ignores failures, send errors included. So Ferry decides
// which interfaces and families to give it: a family is used on an
// interface that has an address of it (IPv4 an IPv4 address, IPv6 a
// link-local one) and where the group can be joined, tried once on a
// socket of Ferry's own. An address still in duplicate address detection
// (tentative, in a freshly started network) counts: it works a moment
// later, and nothing is sent from it before. An interface without
// multicast (Linux's "multicast off", Windows's IP_ADAPTER_NO_MULTICAST,
// both a missing net.FlagMulticast; most VPN tunnels), or where a family
// cannot join, is reported once per family through OnSkip and left out;
// Advertise and Browse fail only when nothing is left, with every reason.
// A front end shows the reports: the CLI as information, or as a warning
// for an interface named with --iface. A browse checks again every round,
// so an interface that comes up joins the next one.
//
// # Windows and FreeBSD
//
// zeroconf picks the interface a multicast packet leaves by with a
// control message (IP_PKTINFO, IPV6_PKTINFO) that golang.org/x/net
// applies only on Linux, Darwin and Solaris. On Windows and FreeBSD the
// message is dropped and every packet leaves by the system's default
// multicast route: on Windows, the adapter with the lowest metric for
// 224.0.0.0/4, usually the one with the default route (route print shows
// both). On a machine with several adapters (Wi-Fi beside Hyper-V, WSL,
// Docker or a VPN, which often outrank Wi-Fi) a receiver behind another
// adapter may not be found, nor this one from there. A direct address
// (--to HOST:PORT) and the QR code always work; the README says so under
// "When no device is found", and so does ferry peers when it finds none.
//
// # Interfaces
//
// Ifaces names the interfaces to use (zeroconf's interface option); none
// means every interface that is up, leaving out loopback interfaces
// without multicast (Linux's lo; name it to use it). An unknown name is
// an error that lists the interfaces that exist. Tests never use the
// machine's real interfaces: they run in network namespaces (see
// core/testkit/netns and star_test.go), or on lo.
package discovery

// Service is the DNS-SD service type Ferry receivers advertise.
const Service = "_ferry._tcp"

// ProtocolVersion is the version this build advertises in TXT "v". A peer
// with another Version is listed, but cannot be talked to.
const ProtocolVersion = 2
