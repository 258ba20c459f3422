package discovery

import (
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// FuzzEntries feeds raw packets, as a browse's links receive them, to the
// response parser. It must not panic, and whatever it returns must be a
// complete, live entry: a port and host from an SRV, a TXT, an address.
func FuzzEntries(f *testing.F) {
	a := testAdvertiser()
	for _, ttl := range []uint32{recordTTL, 0} {
		b, err := a.all([]net.IP{testV4, testLL}, ttl).Pack()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	if r, _ := a.reply(packQuery(f, serviceFQDN, dns.TypePTR, dns.ClassINET, nil), []net.IP{testV4}, 5353); r != nil {
		b, _ := r.Pack()
		f.Add(b)
	}
	m := a.all([]net.IP{testV4}, recordTTL)
	m.Answer = append(m.Answer[:2], append([]dns.RR{emptyNSEC(a.host)}, m.Answer[2:]...)...)
	if b, err := m.Pack(); err == nil {
		f.Add(b) // read by unpack's record-by-record path
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		for _, e := range entries(pkt) {
			if e.Instance == "" || e.HostName == "" || e.TTL == 0 || len(e.AddrIPv4)+len(e.AddrIPv6) == 0 {
				t.Errorf("incomplete entry %+v", e)
			}
			peerFromEntry(e, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), defaultMaxTTL, []string{"eth0"})
		}
	})
}

// FuzzReply feeds raw packets, as an advertiser's links receive them, to
// the responder. It must not panic, and any reply must pack.
func FuzzReply(f *testing.F) {
	a := testAdvertiser()
	f.Add(packQuery(f, serviceFQDN, dns.TypePTR, dns.ClassINET, nil), 5353)
	f.Add(packQuery(f, a.instance, dns.TypeANY, dns.ClassINET|0x8000, nil), 5353)
	f.Add(packQuery(f, "box.local.", dns.TypeA, dns.ClassINET, nil), 40000)
	f.Add([]byte{}, 5353)
	f.Fuzz(func(t *testing.T, pkt []byte, port int) {
		r, _ := a.reply(pkt, []net.IP{testV4, testLL}, port)
		if r == nil {
			return
		}
		if _, err := r.Pack(); err != nil {
			t.Errorf("reply does not pack: %v", err)
		}
	})
}
