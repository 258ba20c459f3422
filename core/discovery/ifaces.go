package discovery

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"

	"github.com/grandcat/zeroconf"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// SkipFunc is told why an interface is left out of mDNS: once per
// interface and address family. iface is the interface's name; err says
// which family, if it concerns one, and what failed.
type SkipFunc func(iface string, err error)

// errNoMulticast is reported for an interface the system says carries no
// multicast: Linux's "multicast off", Windows's IP_ADAPTER_NO_MULTICAST
// (Go reports both as a missing net.FlagMulticast).
var errNoMulticast = errors.New("multicast is off on this interface")

// reporter passes each interface's first failure per family to a
// SkipFunc and drops the rest, so a browse that checks its interfaces
// every round reports each one once.
type reporter struct {
	mu   sync.Mutex
	seen map[string]bool
	fn   SkipFunc
}

func newReporter(fn SkipFunc) *reporter { return &reporter{seen: map[string]bool{}, fn: fn} }

func (r *reporter) report(iface, family string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := iface + "\x00" + family
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	if r.fn != nil {
		if family != "" {
			err = fmt.Errorf("%s: %w", family, err)
		}
		r.fn(iface, err)
	}
}

// interfaces resolves interface names. No names means every interface
// that is up, loopback ones only if multicast-capable (Linux's lo is
// not; it is used only when named). Interfaces without multicast stay in
// the list so that choose reports them: on Windows that is how an
// adapter that refuses multicast shows. An unknown name is an error that
// lists the names that exist.
func interfaces(names []string) ([]net.Interface, error) {
	all, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %w", err)
	}
	if len(names) == 0 {
		var out []net.Interface
		for _, ifi := range all {
			loopOnly := ifi.Flags&net.FlagLoopback != 0 && ifi.Flags&net.FlagMulticast == 0
			if ifi.Flags&net.FlagUp != 0 && !loopOnly {
				out = append(out, ifi)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no network interface is up")
		}
		return out, nil
	}
	var out []net.Interface
	for _, name := range names {
		ifi, err := net.InterfaceByName(name)
		if err != nil {
			known := make([]string, len(all))
			for i, a := range all {
				known[i] = a.Name
			}
			return nil, fmt.Errorf("unknown network interface %q (have: %s)", name, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(out, func(o net.Interface) bool { return o.Index == ifi.Index }) {
			out = append(out, *ifi)
		}
	}
	return out, nil
}

// selection is what mDNS runs on: the interfaces zeroconf is given, the
// address families it opens, and what they add up to.
type selection struct {
	ifaces []net.Interface
	v4, v6 bool
	// addrs are the interfaces' own addresses, IPv4 first: what an
	// Advertiser announces.
	addrs []net.IP
	// zones are the interfaces that carry IPv6 mDNS and have a link-local
	// address: zeroconf does not say which interface an answer came in
	// on, so a peer's IPv6 link-local address is dialled through each.
	zones []string
}

// ipType is the zeroconf option for the families in s.
func (s selection) ipType() zeroconf.IPType {
	var t zeroconf.IPType
	if s.v4 {
		t |= zeroconf.IPv4
	}
	if s.v6 {
		t |= zeroconf.IPv6
	}
	return t
}

// joinKey names one check of choose's: an interface by index and name
// (an index can be reused by a new interface) and a family.
type joinKey struct {
	index int
	name  string
	v6    bool
}

// choose picks, of the interfaces names resolves to, those that can carry
// mDNS, and the families each can. A family is used on an interface that
// has an address of it (IPv4 an IPv4 address, IPv6 a link-local one, as
// mDNS over IPv6 is link-local; an address still tentative, in duplicate
// address detection, counts: it is usable a moment later) and where the
// group can be joined, which choose tries on a socket of its own, once
// per interface and family (joined caches the outcomes across a browse's
// rounds). An interface without multicast, or where a family has an
// address but cannot join, is reported to rep and left out; one with no
// address of either family is left out silently unless named. It fails
// only if nothing is left, with every reason.
//
// Why check at all: zeroconf joins every interface it is given in both
// families and ignores the failures it can, so it would report nothing;
// and its Resolver fails outright, leaking the IPv4 socket it opened,
// when IPv6 joins on no interface (an interface with an MTU under 1280
// has no IPv6) though IPv4 works. Given only the families that can join,
// it never gets there.
func choose(names []string, joined map[joinKey]error, rep *reporter) (selection, error) {
	ifaces, err := interfaces(names)
	if err != nil {
		return selection{}, err
	}
	var s selection
	var errs []error
	fail := func(ifi net.Interface, family string, err error) {
		rep.report(ifi.Name, family, err)
		if family != "" {
			err = fmt.Errorf("%s: %w", family, err)
		}
		errs = append(errs, fmt.Errorf("%s: %w", ifi.Name, err))
	}
	for _, ifi := range ifaces {
		if ifi.Flags&net.FlagMulticast == 0 && ifi.Flags&net.FlagLoopback == 0 {
			fail(ifi, "", errNoMulticast)
			continue
		}
		addrs, err := ifaceAddrs(ifi)
		if err != nil {
			fail(ifi, "", err)
			continue
		}
		has4 := slices.ContainsFunc(addrs, func(ip net.IP) bool { return ip.To4() != nil })
		hasLL6 := slices.ContainsFunc(addrs, func(ip net.IP) bool { return ip.To4() == nil && ip.IsLinkLocalUnicast() })
		if !has4 && !hasLL6 {
			if len(names) > 0 {
				fail(ifi, "", errors.New("no IPv4 address and no IPv6 link-local address"))
			}
			continue
		}
		use4, use6 := false, false
		for _, v6 := range []bool{false, true} {
			if v6 && !hasLL6 || !v6 && !has4 {
				continue
			}
			k := joinKey{ifi.Index, ifi.Name, v6}
			jerr, ok := joined[k]
			if !ok {
				jerr = canJoin(ifi, v6)
				joined[k] = jerr
			}
			if jerr != nil {
				fail(ifi, family(v6), jerr)
				continue
			}
			if v6 {
				use6 = true
			} else {
				use4 = true
			}
		}
		if !use4 && !use6 {
			continue
		}
		s.ifaces = append(s.ifaces, ifi)
		s.v4, s.v6 = s.v4 || use4, s.v6 || use6
		for _, ip := range addrs {
			if ip.To4() != nil && use4 || ip.To4() == nil && use6 {
				s.addrs = append(s.addrs, ip)
			}
		}
		if use6 && hasLL6 && ifi.Flags&net.FlagLoopback == 0 {
			s.zones = append(s.zones, ifi.Name)
		}
	}
	slices.SortStableFunc(s.addrs, func(a, b net.IP) int {
		return boolInt(a.To4() == nil) - boolInt(b.To4() == nil)
	})
	if len(s.ifaces) == 0 {
		if len(errs) == 0 {
			return selection{}, fmt.Errorf("no usable address on %s", ifaceNames(ifaces))
		}
		return selection{}, errors.Join(errs...)
	}
	return s, nil
}

func family(v6 bool) string {
	if v6 {
		return "IPv6"
	}
	return "IPv4"
}

var (
	groupIPv4 = net.IPv4(224, 0, 0, 251)
	groupIPv6 = net.ParseIP("ff02::fb")
)

// canJoin joins the mDNS group on ifi on a throwaway socket bound to no
// particular port, which is what zeroconf will do on its own socket.
func canJoin(ifi net.Interface, v6 bool) error {
	network := "udp4"
	if v6 {
		network = "udp6"
	}
	c, err := net.ListenUDP(network, nil)
	if err != nil {
		return fmt.Errorf("opening a socket: %w", err)
	}
	defer c.Close()
	if v6 {
		err = ipv6.NewPacketConn(c).JoinGroup(&ifi, &net.UDPAddr{IP: groupIPv6})
	} else {
		err = ipv4.NewPacketConn(c).JoinGroup(&ifi, &net.UDPAddr{IP: groupIPv4})
	}
	if err != nil {
		return fmt.Errorf("joining the mDNS group: %w", err)
	}
	return nil
}

// ifaceAddrs lists an interface's unicast addresses, IPv4 first.
// Loopback addresses are kept only on a loopback interface, which someone
// chose on purpose (tests, or two instances on one machine).
func ifaceAddrs(ifi net.Interface) ([]net.IP, error) {
	as, err := ifi.Addrs()
	if err != nil {
		return nil, fmt.Errorf("listing addresses: %w", err)
	}
	var v4, v6 []net.IP
	for _, a := range as {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsUnspecified() || ipn.IP.IsMulticast() {
			continue
		}
		if ipn.IP.IsLoopback() && ifi.Flags&net.FlagLoopback == 0 {
			continue
		}
		if ip4 := ipn.IP.To4(); ip4 != nil {
			v4 = append(v4, ip4)
		} else {
			v6 = append(v6, ipn.IP)
		}
	}
	return append(v4, v6...), nil
}

func ifaceNames(ifaces []net.Interface) string {
	s := make([]string, len(ifaces))
	for i, ifi := range ifaces {
		s[i] = ifi.Name
	}
	return strings.Join(s, ", ")
}
