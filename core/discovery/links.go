package discovery

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

var (
	mdnsIPv4 = &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353}
	mdnsIPv6 = &net.UDPAddr{IP: net.ParseIP("ff02::fb"), Port: 5353}
)

// SkipFunc is told why an interface is left out of mDNS: once per
// interface and address family, whether it failed when Ferry set up its
// socket there or later, on its first failed send. iface is the
// interface's name; err says which family and what failed.
type SkipFunc func(iface string, err error)

// errNoMulticast is reported for an interface the system says carries no
// multicast: Linux's "multicast off", Windows's IP_ADAPTER_NO_MULTICAST
// (Go reports both as a missing net.FlagMulticast).
var errNoMulticast = errors.New("multicast is off on this interface")

// reporter passes each interface's first failure per family to a
// SkipFunc, and drops the rest. Send failures come from several
// goroutines, hence the lock.
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

// link is one multicast socket on one interface and address family: the
// only way Ferry sends or receives mDNS. Its outgoing interface is set on
// the socket (IP_MULTICAST_IF, IPV6_MULTICAST_IF), never per packet; see
// the package doc for why.
type link struct {
	ifi   net.Interface
	v6    bool
	conn  *net.UDPConn
	group *net.UDPAddr
	addrs []net.IP // the interface's own addresses, both families, IPv4 first
	rep   *reporter
}

func (l *link) family() string {
	if l.v6 {
		return "IPv6"
	}
	return "IPv4"
}

// send multicasts b out of this link's interface. The first failure is
// reported; the link stays open, since most send failures (an address
// not yet usable, a route that comes back) pass.
func (l *link) send(b []byte) error {
	return l.sendTo(b, l.group)
}

// sendTo sends b to dst (a unicast reply, or the group) from this link.
func (l *link) sendTo(b []byte, dst *net.UDPAddr) error {
	if _, err := l.conn.WriteToUDP(b, dst); err != nil {
		err = fmt.Errorf("sending to %v: %w", dst, err)
		// A send that loses the race with Close is no news.
		if !errors.Is(err, net.ErrClosed) {
			l.rep.report(l.ifi.Name, l.family(), err)
		}
		return err
	}
	return nil
}

// openLinks opens a link for every usable family of every interface, and
// reports and skips what cannot be used. A family is used on an
// interface that has an address of it: IPv4 needs an IPv4 address, IPv6
// a link-local one (mDNS over IPv6 is link-local; Linux's lo has only
// ::1 and no IPv6 multicast route). An interface without either is
// skipped silently, unless named, because there is nothing to announce
// or reach through it. It fails only if no link opened at all, with
// every reason.
func openLinks(ifaces []net.Interface, named bool, rep *reporter) ([]*link, error) {
	var links []*link
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
		has4, hasLL6 := false, false
		for _, ip := range addrs {
			has4 = has4 || ip.To4() != nil
			hasLL6 = hasLL6 || ip.To4() == nil && ip.IsLinkLocalUnicast()
		}
		if !has4 && !hasLL6 {
			if named {
				fail(ifi, "", errors.New("no IPv4 address and no IPv6 link-local address"))
			}
			continue
		}
		for _, v6 := range []bool{false, true} {
			if v6 && !hasLL6 || !v6 && !has4 {
				continue
			}
			l := &link{ifi: ifi, v6: v6, addrs: addrs, rep: rep}
			if err := l.open(); err != nil {
				fail(ifi, l.family(), err)
				continue
			}
			links = append(links, l)
		}
	}
	if len(links) == 0 {
		if len(errs) == 0 {
			return nil, fmt.Errorf("no usable address on %s", ifaceNames(ifaces))
		}
		return nil, errors.Join(errs...)
	}
	return links, nil
}

// open binds the mDNS port (Go binds the wildcard address with
// SO_REUSEADDR when given a group, so this coexists with avahi, Bonjour
// and other links), joins the group on this interface only, and makes
// this interface the socket's outgoing one.
func (l *link) open() error {
	network, group := "udp4", mdnsIPv4
	if l.v6 {
		network, group = "udp6", mdnsIPv6
	}
	l.group = group
	c, err := net.ListenUDP(network, group)
	if err != nil {
		return fmt.Errorf("binding port 5353: %w", err)
	}
	if err := l.setUp(c); err != nil {
		c.Close()
		return err
	}
	l.conn = c
	return nil
}

func (l *link) setUp(c *net.UDPConn) error {
	if err := ownGroupsOnly(c, l.v6); err != nil {
		return fmt.Errorf("receiving only the groups joined: %w", err)
	}
	ifi := &l.ifi
	if l.v6 {
		p := ipv6.NewPacketConn(c)
		if err := p.JoinGroup(ifi, l.group); err != nil {
			return fmt.Errorf("joining %v: %w", l.group.IP, err)
		}
		if err := p.SetMulticastInterface(ifi); err != nil {
			return fmt.Errorf("choosing the outgoing interface: %w", err)
		}
		// RFC 6762 section 11: sent with hop limit 255, so a receiver
		// can tell a packet from the local link.
		if err := p.SetMulticastHopLimit(255); err != nil {
			return fmt.Errorf("setting the hop limit: %w", err)
		}
		// Loopback on: two Ferry instances on one machine hear each other.
		return p.SetMulticastLoopback(true)
	}
	p := ipv4.NewPacketConn(c)
	if err := p.JoinGroup(ifi, l.group); err != nil {
		return fmt.Errorf("joining %v: %w", l.group.IP, err)
	}
	if err := p.SetMulticastInterface(ifi); err != nil {
		return fmt.Errorf("choosing the outgoing interface: %w", err)
	}
	if err := p.SetMulticastTTL(255); err != nil {
		return fmt.Errorf("setting the TTL: %w", err)
	}
	return p.SetMulticastLoopback(true)
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

// packet is one datagram a link received.
type packet struct {
	link *link
	from *net.UDPAddr
	data []byte
}

// readLinks starts one reader per link; each hands what it reads to
// handle until its socket is closed. The caller closes the sockets
// (closeLinks) and then waits on wg.
func readLinks(links []*link, wg *sync.WaitGroup, handle func(packet)) {
	for _, l := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 9000: the largest mDNS packet RFC 6762 section 17 allows
			// over jumbo frames; larger ones are cut and fail to parse.
			buf := make([]byte, 9000)
			for failures := 0; ; {
				n, from, err := l.conn.ReadFromUDP(buf)
				if err != nil {
					if errors.Is(err, net.ErrClosed) {
						return
					}
					// Windows reports an ICMP port-unreachable from an
					// earlier send as a read error: keep reading, but not
					// forever on an error that does not pass.
					if failures++; failures == 100 {
						l.rep.report(l.ifi.Name, l.family(), fmt.Errorf("receiving: %w", err))
						return
					}
					continue
				}
				failures = 0
				handle(packet{link: l, from: from, data: append([]byte(nil), buf[:n]...)})
			}
		}()
	}
}

func closeLinks(links []*link) {
	for _, l := range links {
		l.conn.Close()
	}
}

func linkNames(links []*link) string {
	var ifaces []net.Interface
	for _, l := range links {
		if len(ifaces) == 0 || ifaces[len(ifaces)-1].Index != l.ifi.Index {
			ifaces = append(ifaces, l.ifi)
		}
	}
	return ifaceNames(ifaces)
}
