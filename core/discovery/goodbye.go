package discovery

import (
	"strings"

	"github.com/miekg/dns"
)

// serviceFQDN is the browse name as mDNS spells it.
const serviceFQDN = Service + ".local."

// goodbyes returns the instance names (presentation form, as miekg/dns
// unpacks them) that
// packet withdraws: a PTR for the Ferry service, or an SRV for one of its
// instances, with TTL 0. Anything that does not parse yields nothing.
func goodbyes(packet []byte) []string {
	m, ok := unpack(packet)
	if !ok || !m.Response {
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
