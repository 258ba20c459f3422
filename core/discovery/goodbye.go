package discovery

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"

	"github.com/miekg/dns"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// zeroconf v1.0.0 receives goodbyes (records with TTL 0) but drops them
// without telling its caller, so a browse would keep a departed receiver
// until its lifetime ran out. goodbyeListener fills that gap: it listens
// to the same multicast groups on its own socket (the kernel hands every
// mDNS datagram to every socket bound to port 5353) and reports the
// instances that said goodbye. It reads nothing else.

var (
	mdnsIPv4 = &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353}
	mdnsIPv6 = &net.UDPAddr{IP: net.ParseIP("ff02::fb"), Port: 5353}
)

// serviceFQDN is the browse name as mDNS spells it.
const serviceFQDN = Service + ".local."

// goodbyeListener is owned by Browse: started by listenGoodbyes, stopped
// and waited for by close.
type goodbyeListener struct {
	conns []net.PacketConn
	wg    sync.WaitGroup
}

// listenGoodbyes joins the mDNS groups on ifaces and sends the raw
// instance name of each goodbye to out until ctx ends or close is called.
// It fails only if it can join neither IPv4 nor IPv6 on any interface.
func listenGoodbyes(ctx context.Context, ifaces []net.Interface, out chan<- string) (*goodbyeListener, error) {
	l := &goodbyeListener{}
	var errs []error
	if c, err := net.ListenUDP("udp4", mdnsIPv4); err != nil {
		errs = append(errs, err)
	} else if err := join(ifaces, func(ifi *net.Interface) error {
		return ipv4.NewPacketConn(c).JoinGroup(ifi, mdnsIPv4)
	}); err != nil {
		c.Close()
		errs = append(errs, err)
	} else {
		l.conns = append(l.conns, c)
	}
	if c, err := net.ListenUDP("udp6", mdnsIPv6); err != nil {
		errs = append(errs, err)
	} else if err := join(ifaces, func(ifi *net.Interface) error {
		return ipv6.NewPacketConn(c).JoinGroup(ifi, mdnsIPv6)
	}); err != nil {
		c.Close()
		errs = append(errs, err)
	} else {
		l.conns = append(l.conns, c)
	}
	if len(l.conns) == 0 {
		return nil, errors.Join(errs...)
	}
	for _, c := range l.conns {
		l.wg.Add(1)
		go l.read(ctx, c, out)
	}
	return l, nil
}

// join joins on every interface, and fails only if it joined none.
func join(ifaces []net.Interface, joinOne func(*net.Interface) error) error {
	var errs []error
	for i := range ifaces {
		if err := joinOne(&ifaces[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == len(ifaces) {
		return errors.Join(errs...)
	}
	return nil
}

func (l *goodbyeListener) read(ctx context.Context, c net.PacketConn, out chan<- string) {
	defer l.wg.Done()
	buf := make([]byte, 9000)
	for {
		n, _, err := c.ReadFrom(buf)
		if err != nil {
			return // closed by close
		}
		for _, inst := range goodbyes(buf[:n]) {
			select {
			case out <- inst:
			case <-ctx.Done():
				return
			}
		}
	}
}

// close stops the readers and waits for them.
func (l *goodbyeListener) close() {
	for _, c := range l.conns {
		c.Close()
	}
	l.wg.Wait()
}

// goodbyes returns the raw instance names (as zeroconf spells them) that
// packet withdraws: a PTR for the Ferry service, or an SRV for one of its
// instances, with TTL 0. Anything that does not parse yields nothing.
func goodbyes(packet []byte) []string {
	var m dns.Msg
	if err := m.Unpack(packet); err != nil || !m.Response {
		return nil
	}
	var out []string
	add := func(fqdn string) {
		inst, ok := cutSuffixFold(fqdn, "."+serviceFQDN)
		if !ok || inst == "" {
			return
		}
		for _, o := range out {
			if o == inst {
				return
			}
		}
		out = append(out, inst)
	}
	for _, rr := range append(m.Answer, m.Extra...) {
		if rr.Header().Ttl != 0 {
			continue
		}
		switch rr := rr.(type) {
		case *dns.PTR:
			if strings.EqualFold(rr.Hdr.Name, serviceFQDN) {
				add(rr.Ptr)
			}
		case *dns.SRV:
			add(rr.Hdr.Name)
		}
	}
	return out
}

func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || !strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return "", false
	}
	return s[:len(s)-len(suffix)], true
}
