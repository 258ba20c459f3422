package discovery

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"github.com/ferry-project/ferry/core/secure"
)

// AdvertiseConfig says what a receiver advertises and where.
type AdvertiseConfig struct {
	Name, Fingerprint string
	Port              int
	Ifaces            []string // interface names; empty = every interface that is up
	// OnSkip, if set, is told once per interface and address family that
	// cannot carry mDNS; the others still advertise. It may be called
	// from Advertise and, for a failed send, from the Advertiser's own
	// goroutines until Close returns.
	OnSkip SkipFunc
}

// recordTTL is the lifetime of every record Ferry sends: RFC 6762's 120 s
// for address records, used for all of them, so that a receiver that
// vanished without a goodbye lapses from every browser's list in two
// minutes (browsers re-ask well before that).
const recordTTL = 120

// announceGap is the pause between the two unsolicited announcements RFC
// 6762 section 8.3 asks for.
const announceGap = time.Second

// Advertiser answers mDNS queries for one receiver until Close. It owns
// one goroutine per link, which reads and answers queries, and one that
// sends the start-up announcements.
type Advertiser struct {
	links    []*link
	instance string // service instance name, presentation form
	host     string // SRV target, presentation form
	port     uint16
	txt      []string // TXT strings, presentation form
	// Lower-cased raw names a question is matched against.
	qService, qInstance, qHost string

	closed chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// Advertise starts announcing a receiver listening on cfg.Port. The
// instance name is the device name with the fingerprint's first group
// ("Zoë's laptop (K7QX)"); the full name, fingerprint and protocol version
// are in TXT. Each interface announces, and answers with, its own
// addresses. Interfaces that cannot carry mDNS are reported through
// cfg.OnSkip and left out; Advertise fails only if none can.
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
	ifaces, err := interfaces(cfg.Ifaces)
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
	links, err := openLinks(ifaces, len(cfg.Ifaces) > 0, newReporter(cfg.OnSkip))
	if err != nil {
		return nil, fmt.Errorf("advertising: %w", err)
	}
	a := newAdvertiser(name, fp, host, cfg.Port)
	a.links = links
	readLinks(links, &a.wg, a.answer)
	a.wg.Add(1)
	go a.announce()
	return a, nil
}

// newAdvertiser holds the records for a receiver; Advertise gives it
// links and starts it.
func newAdvertiser(name, fp, host string, port int) *Advertiser {
	a := &Advertiser{
		instance: escapePresentation(InstanceName(name, fp)) + "." + serviceFQDN,
		host:     host + ".local.",
		port:     uint16(port),
		txt:      escapeTXT(TXTStrings(name, fp)),
		closed:   make(chan struct{}),
	}
	a.qService = questionKey(serviceFQDN)
	a.qInstance = questionKey(a.instance)
	a.qHost = questionKey(a.host)
	return a
}

// Close sends a goodbye (the records again with TTL 0) on every link and
// stops answering. It is safe to call more than once. The goodbye may be
// lost; then browsers drop the entry when its lifetime ends.
func (a *Advertiser) Close() {
	a.once.Do(func() {
		close(a.closed)
		for _, l := range a.links {
			a.sendAll(l, 0)
		}
		closeLinks(a.links)
		a.wg.Wait()
	})
}

// announce sends the full record set on every link twice, announceGap
// apart, so browsers already listening see the receiver at once.
func (a *Advertiser) announce() {
	defer a.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for range 2 {
		select {
		case <-a.closed:
			return
		case <-t.C:
		}
		for _, l := range a.links {
			a.sendAll(l, recordTTL)
		}
		t.Reset(announceGap)
	}
}

// sendAll multicasts every record on l with ttl: an announcement, or with
// ttl 0 a goodbye.
func (a *Advertiser) sendAll(l *link, ttl uint32) {
	if b, err := a.all(l.addrs, ttl).Pack(); err == nil {
		l.send(b)
	}
}

// all is every record of this receiver, with addrs, as one unsolicited
// response.
func (a *Advertiser) all(addrs []net.IP, ttl uint32) *dns.Msg {
	m := new(dns.Msg)
	m.Response, m.Authoritative = true, true
	m.Answer = append(m.Answer, a.ptr(ttl), a.srv(ttl), a.txtRR(ttl))
	m.Answer = append(m.Answer, a.addrRRs(addrs, ttl, true, true)...)
	return m
}

// answer handles one datagram from l: a query about this receiver is
// answered on l alone, with l's interface's addresses.
func (a *Advertiser) answer(p packet) {
	resp, unicast := a.reply(p.data, p.link.addrs, p.from.Port)
	if resp == nil {
		return
	}
	b, err := resp.Pack()
	if err != nil {
		return
	}
	if unicast {
		p.link.sendTo(b, p.from)
	} else {
		p.link.send(b)
	}
}

// reply is the response to query, a datagram from source port fromPort,
// answered with addrs, and whether it goes back by unicast. It is nil
// for anything that is not a query about this receiver: responses,
// probes, garbage. The query is peer input.
func (a *Advertiser) reply(query []byte, addrs []net.IP, fromPort int) (*dns.Msg, bool) {
	q, ok := unpack(query)
	if !ok || q.Response || q.Opcode != dns.OpcodeQuery || len(q.Ns) > 0 {
		// A query with authority records is a probe for a name; Ferry
		// does not defend names (see the package doc).
		return nil, false
	}
	resp := new(dns.Msg)
	resp.Response, resp.Authoritative = true, true
	unicast := fromPort != 5353 // a one-shot legacy resolver (RFC 6762 section 6.7)
	for _, qu := range q.Question {
		if qu.Qclass&0x8000 != 0 {
			unicast = true // the QU bit: the asker prefers a unicast reply
		}
		a.addAnswers(resp, addrs, qu)
	}
	if len(resp.Answer) == 0 {
		return nil, false
	}
	resp.Answer = dedupRRs(resp.Answer)
	resp.Extra = dedupRRs(slices.DeleteFunc(resp.Extra, func(rr dns.RR) bool { return containsRR(resp.Answer, rr) }))
	if unicast {
		resp.Id = q.Id
		if fromPort != 5353 {
			resp.Question = q.Question // legacy resolvers check it
		}
	}
	return resp, unicast
}

// addAnswers adds to resp what answers qu, with the records a browser
// needs next as additional ones.
func (a *Advertiser) addAnswers(resp *dns.Msg, addrs []net.IP, qu dns.Question) {
	if qu.Qclass&0x7fff != dns.ClassINET && qu.Qclass&0x7fff != dns.ClassANY {
		return
	}
	t := qu.Qtype
	all := t == dns.TypeANY
	switch questionKey(qu.Name) {
	case questionKey(servicesFQDN):
		if t == dns.TypePTR || all {
			resp.Answer = append(resp.Answer, &dns.PTR{Hdr: hdr(servicesFQDN, dns.TypePTR, recordTTL, false), Ptr: serviceFQDN})
		}
	case a.qService:
		if t == dns.TypePTR || all {
			resp.Answer = append(resp.Answer, a.ptr(recordTTL))
			resp.Extra = append(resp.Extra, a.srv(recordTTL), a.txtRR(recordTTL))
			resp.Extra = append(resp.Extra, a.addrRRs(addrs, recordTTL, true, true)...)
		}
	case a.qInstance:
		if t == dns.TypeSRV || all {
			resp.Answer = append(resp.Answer, a.srv(recordTTL))
		}
		if t == dns.TypeTXT || all {
			resp.Answer = append(resp.Answer, a.txtRR(recordTTL))
		}
		if t == dns.TypeSRV || t == dns.TypeTXT || all {
			resp.Extra = append(resp.Extra, a.srv(recordTTL), a.txtRR(recordTTL))
			resp.Extra = append(resp.Extra, a.addrRRs(addrs, recordTTL, true, true)...)
		}
	case a.qHost:
		if t == dns.TypeA || t == dns.TypeAAAA || all {
			resp.Answer = append(resp.Answer, a.addrRRs(addrs, recordTTL, t != dns.TypeAAAA, t != dns.TypeA)...)
			resp.Extra = append(resp.Extra, a.addrRRs(addrs, recordTTL, true, true)...)
		}
	}
}

// servicesFQDN is DNS-SD's service type enumeration name (RFC 6763
// section 9).
const servicesFQDN = "_services._dns-sd._udp.local."

func (a *Advertiser) ptr(ttl uint32) dns.RR {
	return &dns.PTR{Hdr: hdr(serviceFQDN, dns.TypePTR, ttl, false), Ptr: a.instance}
}

func (a *Advertiser) srv(ttl uint32) dns.RR {
	return &dns.SRV{Hdr: hdr(a.instance, dns.TypeSRV, ttl, true), Port: a.port, Target: a.host}
}

func (a *Advertiser) txtRR(ttl uint32) dns.RR {
	return &dns.TXT{Hdr: hdr(a.instance, dns.TypeTXT, ttl, true), Txt: a.txt}
}

// addrRRs are the A and AAAA records for addrs.
func (a *Advertiser) addrRRs(addrs []net.IP, ttl uint32, v4, v6 bool) []dns.RR {
	var out []dns.RR
	for _, ip := range addrs {
		if ip4 := ip.To4(); ip4 != nil {
			if v4 {
				out = append(out, &dns.A{Hdr: hdr(a.host, dns.TypeA, ttl, true), A: ip4})
			}
		} else if v6 {
			out = append(out, &dns.AAAA{Hdr: hdr(a.host, dns.TypeAAAA, ttl, true), AAAA: ip})
		}
	}
	return out
}

// hdr is a record header. unique records (all but the shared PTR) carry
// the cache-flush bit (RFC 6762 section 10.2): this answer replaces what
// a browser cached for the name.
func hdr(name string, t uint16, ttl uint32, unique bool) dns.RR_Header {
	class := uint16(dns.ClassINET)
	if unique {
		class |= 0x8000
	}
	return dns.RR_Header{Name: name, Rrtype: t, Class: class, Ttl: ttl}
}

// questionKey is the form names are compared in: raw bytes, ASCII
// lower-cased (DNS names match case-insensitively).
func questionKey(name string) string {
	return strings.ToLower(unescapePresentation(name))
}

func dedupRRs(rrs []dns.RR) []dns.RR {
	var out []dns.RR
	for _, rr := range rrs {
		if !containsRR(out, rr) {
			out = append(out, rr)
		}
	}
	return out
}

func containsRR(rrs []dns.RR, rr dns.RR) bool {
	for _, o := range rrs {
		if dns.IsDuplicate(o, rr) {
			return true
		}
	}
	return false
}
