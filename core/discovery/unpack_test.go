package discovery

import (
	"net"
	"slices"
	"testing"

	"github.com/miekg/dns"
)

// emptyNSEC is the record python-zeroconf adds to its answers: an NSEC
// whose type bitmap has an empty block, which miekg/dns refuses.
func emptyNSEC(name string) dns.RR {
	return &dns.RFC3597{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeNSEC, Class: dns.ClassINET, Ttl: 120},
		Rdata: "00" + "0000"} // next name: the root; then window 0, length 0
}

func TestUnpackSkipsRecordsItCannotRead(t *testing.T) {
	a := testAdvertiser()
	m := a.all([]net.IP{testV4}, recordTTL)
	// After the PTR and SRV, before the TXT and A the browser needs, as
	// python-zeroconf orders them.
	m.Answer = slices.Insert(m.Answer, 2, emptyNSEC(a.host))
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	if err := new(dns.Msg).Unpack(b); err == nil {
		t.Fatal("miekg/dns read the empty NSEC block: this test no longer shows anything")
	}
	got, ok := unpack(b)
	if !ok || !got.Response || len(got.Answer) != len(m.Answer)-1 {
		t.Fatalf("unpack: ok %v, %d answers, want %d: %v", ok, len(got.Answer), len(m.Answer)-1, got)
	}
	if es := entries(b); len(es) != 1 || es[0].Port != 4711 || len(es[0].AddrIPv4) != 1 || len(es[0].Text) != 3 {
		t.Errorf("entries %+v, want the receiver", es)
	}

	q := new(dns.Msg)
	q.SetQuestion(serviceFQDN, dns.TypePTR)
	q.Answer = []dns.RR{emptyNSEC("x.local.")} // a known answer nobody can read
	qb, err := q.Pack()
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := a.reply(qb, []net.IP{testV4}, 5353); r == nil {
		t.Error("no reply to a query with an unreadable known answer")
	}

	// What cannot be skipped safely fails the whole packet.
	for what, bad := range map[string][]byte{
		"short header":        b[:11],
		"cut inside a record": b[:len(b)-3],
		"record longer than the packet": func() []byte {
			c := slices.Clone(b)
			c[len(c)-6] = 0xff // the last record's rdlength, high byte
			return c
		}(),
	} {
		if _, ok := unpack(bad); ok {
			t.Errorf("%s: unpacked", what)
		}
	}
}
