package discovery

import (
	"encoding/binary"

	"github.com/miekg/dns"
)

// unpack reads an mDNS packet. miekg/dns refuses a whole message over one
// record it cannot read, and responders in the field send such records:
// python-zeroconf (Home Assistant, many devices) adds an NSEC with an
// empty type-bitmap block, which RFC 4034 forbids and miekg/dns rejects,
// between the SRV and the TXT and address records a browser needs. So
// when the strict parse fails, unpack reads the packet again record by
// record and skips each record it cannot parse, using the length its
// header gives. It fails only when the header, a question or a record's
// own name and length cannot be read: then nothing after them can be
// trusted to start where it seems to. The packet is peer input.
func unpack(b []byte) (*dns.Msg, bool) {
	m := new(dns.Msg)
	err := m.Unpack(b)
	if err == nil {
		return m, true
	}
	if len(b) < 12 {
		return nil, false
	}
	// The header parsed (it is 12 plain bytes), so m.MsgHdr is set.
	count := func(i int) int { return int(binary.BigEndian.Uint16(b[4+2*i:])) }
	m.Question, m.Answer, m.Ns, m.Extra = nil, nil, nil, nil
	off := 12
	for range count(0) {
		name, next, err := dns.UnpackDomainName(b, off)
		if err != nil || next+4 > len(b) {
			return nil, false
		}
		m.Question = append(m.Question, dns.Question{
			Name:   name,
			Qtype:  binary.BigEndian.Uint16(b[next:]),
			Qclass: binary.BigEndian.Uint16(b[next+2:]),
		})
		off = next + 4
	}
	for i, sec := range []*[]dns.RR{&m.Answer, &m.Ns, &m.Extra} {
		for range count(1 + i) {
			_, next, err := dns.UnpackDomainName(b, off)
			if err != nil || next+10 > len(b) {
				return nil, false
			}
			end := next + 10 + int(binary.BigEndian.Uint16(b[next+8:]))
			if end > len(b) {
				return nil, false
			}
			if rr, _, err := dns.UnpackRR(b[:end], off); err == nil {
				*sec = append(*sec, rr)
			}
			off = end
		}
	}
	return m, true
}
