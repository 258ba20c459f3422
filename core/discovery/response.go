package discovery

import (
	"strings"

	"github.com/miekg/dns"
)

// entries reads the Ferry receivers one mDNS response describes. A
// receiver counts only if the same packet carries its SRV (port and
// host), its TXT and at least one address of that host, as Ferry's and
// other responders send them together: a partial answer never replaces a
// complete one. Records with TTL 0 are goodbyes, which goodbyes reads;
// an entry any of whose PTR, SRV or TXT records has TTL 0 is left out.
// The packet is peer input: anything that does not parse yields nothing.
func entries(packet []byte) []*entry {
	m, ok := unpack(packet)
	if !ok || !m.Response {
		return nil
	}
	rrs := append(append(m.Answer, m.Ns...), m.Extra...)
	type partial struct {
		e             *entry
		hasSRV, hasTX bool
		gone          bool
	}
	var order []string
	byName := map[string]*partial{}
	get := func(inst string) *partial {
		key := strings.ToLower(inst)
		p, ok := byName[key]
		if !ok {
			p = &partial{e: &entry{Instance: inst, TTL: ^uint32(0)}}
			byName[key] = p
			order = append(order, key)
		}
		return p
	}
	ttl := func(p *partial, t uint32) {
		if t == 0 {
			p.gone = true
		}
		p.e.TTL = min(p.e.TTL, t)
	}
	for _, rr := range rrs {
		switch rr := rr.(type) {
		case *dns.PTR:
			if !strings.EqualFold(rr.Hdr.Name, serviceFQDN) {
				continue
			}
			if inst, ok := cutSuffixFold(rr.Ptr, "."+serviceFQDN); ok && inst != "" {
				ttl(get(inst), rr.Hdr.Ttl)
			}
		case *dns.SRV:
			if inst, ok := cutSuffixFold(rr.Hdr.Name, "."+serviceFQDN); ok && inst != "" {
				p := get(inst)
				p.hasSRV = true
				p.e.HostName, p.e.Port = rr.Target, int(rr.Port)
				ttl(p, rr.Hdr.Ttl)
			}
		case *dns.TXT:
			if inst, ok := cutSuffixFold(rr.Hdr.Name, "."+serviceFQDN); ok && inst != "" {
				p := get(inst)
				p.hasTX = true
				p.e.Text = rr.Txt
				ttl(p, rr.Hdr.Ttl)
			}
		}
	}
	var out []*entry
	for _, key := range order {
		p := byName[key]
		if !p.hasSRV || !p.hasTX || p.gone {
			continue
		}
		for _, rr := range rrs {
			if !strings.EqualFold(rr.Header().Name, p.e.HostName) || rr.Header().Ttl == 0 {
				continue
			}
			switch rr := rr.(type) {
			case *dns.A:
				p.e.AddrIPv4 = append(p.e.AddrIPv4, rr.A)
			case *dns.AAAA:
				p.e.AddrIPv6 = append(p.e.AddrIPv6, rr.AAAA)
			}
		}
		if len(p.e.AddrIPv4)+len(p.e.AddrIPv6) > 0 {
			out = append(out, p.e)
		}
	}
	return out
}
