package discovery

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

var (
	testV4 = net.ParseIP("10.0.0.1").To4()
	testLL = net.ParseIP("fe80::1")
)

func testAdvertiser() *Advertiser { return newAdvertiser(testName, testFP, "box", 4711) }

func packQuery(t testing.TB, name string, qtype, qclass uint16, mod func(*dns.Msg)) []byte {
	t.Helper()
	m := new(dns.Msg)
	m.Question = []dns.Question{{Name: name, Qtype: qtype, Qclass: qclass}}
	if mod != nil {
		mod(m)
	}
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rrTypes(rrs []dns.RR) []uint16 {
	var out []uint16
	for _, rr := range rrs {
		out = append(out, rr.Header().Rrtype)
	}
	return out
}

// TestReply: which questions get which answers, and how they go back.
func TestReply(t *testing.T) {
	a := testAdvertiser()
	inst := a.instance
	T := func(ts ...uint16) []uint16 { return ts }
	for _, tc := range []struct {
		what          string
		query         []byte
		fromPort      int
		answer, extra []uint16 // nil answer: no reply
		unicast       bool
	}{
		{"browse", packQuery(t, serviceFQDN, dns.TypePTR, dns.ClassINET, nil), 5353,
			T(dns.TypePTR), T(dns.TypeSRV, dns.TypeTXT, dns.TypeA, dns.TypeAAAA), false},
		{"browse, other case", packQuery(t, "_FERRY._Tcp.LOCAL.", dns.TypePTR, dns.ClassINET, nil), 5353,
			T(dns.TypePTR), T(dns.TypeSRV, dns.TypeTXT, dns.TypeA, dns.TypeAAAA), false},
		{"browse, QU bit", packQuery(t, serviceFQDN, dns.TypePTR, dns.ClassINET|0x8000, nil), 5353,
			T(dns.TypePTR), T(dns.TypeSRV, dns.TypeTXT, dns.TypeA, dns.TypeAAAA), true},
		{"browse from a legacy resolver", packQuery(t, serviceFQDN, dns.TypePTR, dns.ClassINET, nil), 40000,
			T(dns.TypePTR), T(dns.TypeSRV, dns.TypeTXT, dns.TypeA, dns.TypeAAAA), true},
		{"SRV", packQuery(t, inst, dns.TypeSRV, dns.ClassINET, nil), 5353,
			T(dns.TypeSRV), T(dns.TypeTXT, dns.TypeA, dns.TypeAAAA), false},
		{"TXT", packQuery(t, inst, dns.TypeTXT, dns.ClassINET, nil), 5353,
			T(dns.TypeTXT), T(dns.TypeSRV, dns.TypeA, dns.TypeAAAA), false},
		{"ANY instance", packQuery(t, inst, dns.TypeANY, dns.ClassANY, nil), 5353,
			T(dns.TypeSRV, dns.TypeTXT), T(dns.TypeA, dns.TypeAAAA), false},
		{"A", packQuery(t, "box.local.", dns.TypeA, dns.ClassINET, nil), 5353,
			T(dns.TypeA), T(dns.TypeAAAA), false},
		{"AAAA", packQuery(t, "BOX.local.", dns.TypeAAAA, dns.ClassINET, nil), 5353,
			T(dns.TypeAAAA), T(dns.TypeA), false},
		{"service enumeration", packQuery(t, servicesFQDN, dns.TypePTR, dns.ClassINET, nil), 5353,
			T(dns.TypePTR), nil, false},
		{"another service", packQuery(t, "_http._tcp.local.", dns.TypePTR, dns.ClassINET, nil), 5353, nil, nil, false},
		{"another class", packQuery(t, serviceFQDN, dns.TypePTR, dns.ClassCHAOS, nil), 5353, nil, nil, false},
		{"a response", packQuery(t, serviceFQDN, dns.TypePTR, dns.ClassINET, func(m *dns.Msg) { m.Response = true }), 5353, nil, nil, false},
		{"a probe", packQuery(t, inst, dns.TypeANY, dns.ClassINET, func(m *dns.Msg) {
			m.Ns = []dns.RR{&dns.SRV{Hdr: hdr(inst, dns.TypeSRV, 120, false), Target: "other.local."}}
		}), 5353, nil, nil, false},
		{"garbage", []byte{0, 1, 2}, 5353, nil, nil, false},
	} {
		t.Run(tc.what, func(t *testing.T) {
			resp, unicast := a.reply(tc.query, []net.IP{testV4, testLL}, tc.fromPort)
			if tc.answer == nil {
				if resp != nil {
					t.Fatalf("replied %v", resp)
				}
				return
			}
			if resp == nil {
				t.Fatal("no reply")
			}
			if !slices.Equal(rrTypes(resp.Answer), tc.answer) || !slices.Equal(rrTypes(resp.Extra), tc.extra) || unicast != tc.unicast {
				t.Errorf("answer %v extra %v unicast %v; want %v %v %v",
					rrTypes(resp.Answer), rrTypes(resp.Extra), unicast, tc.answer, tc.extra, tc.unicast)
			}
			if _, err := resp.Pack(); err != nil {
				t.Errorf("reply does not pack: %v", err)
			}
			if len(resp.Question) > 0 != (tc.fromPort != 5353) {
				t.Errorf("questions %v: a legacy resolver gets them back, mDNS never", resp.Question)
			}
		})
	}
}

// TestAnnouncementRoundTrip: what the responder sends, the browser's
// parser reads back as the receiver, and the goodbye removes it.
func TestAnnouncementRoundTrip(t *testing.T) {
	a := testAdvertiser()
	b, err := a.all([]net.IP{testV4, testLL}, recordTTL).Pack()
	if err != nil {
		t.Fatal(err)
	}
	es := entries(b)
	if len(es) != 1 {
		t.Fatalf("entries: %+v, want one", es)
	}
	e := es[0]
	if unescapePresentation(e.Instance) != testName+" (K7QX)" || e.Port != 4711 || e.TTL != recordTTL ||
		!slices.Equal(unescapeTXT(e.Text), TXTStrings(testName, testFP)) ||
		len(e.AddrIPv4) != 1 || !e.AddrIPv4[0].Equal(testV4) || len(e.AddrIPv6) != 1 || !e.AddrIPv6[0].Equal(testLL) {
		t.Errorf("entry %+v", e)
	}
	if g := goodbyes(b); len(g) != 0 {
		t.Errorf("an announcement read as goodbyes %q", g)
	}

	bye, err := a.all([]net.IP{testV4}, 0).Pack()
	if err != nil {
		t.Fatal(err)
	}
	if es := entries(bye); len(es) != 0 {
		t.Errorf("a goodbye read as entries %+v", es)
	}
	if g := goodbyes(bye); len(g) != 1 || g[0] != e.Instance {
		t.Errorf("goodbyes %q, want %q", g, e.Instance)
	}
}

// TestEntriesNeedEverything: a partial answer never becomes an entry
// (it would replace a complete one in the browse table).
func TestEntriesNeedEverything(t *testing.T) {
	a := testAdvertiser()
	full := a.all([]net.IP{testV4}, recordTTL)
	without := func(drop uint16) []byte {
		m := full.Copy()
		m.Answer = slices.DeleteFunc(m.Answer, func(rr dns.RR) bool { return rr.Header().Rrtype == drop })
		b, err := m.Pack()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, drop := range []uint16{dns.TypeSRV, dns.TypeTXT, dns.TypeA} {
		if es := entries(without(drop)); len(es) != 0 {
			t.Errorf("without %s: entries %+v", dns.TypeToString[drop], es)
		}
	}
	// Without the PTR the SRV and TXT still name the instance.
	if es := entries(without(dns.TypePTR)); len(es) != 1 {
		t.Errorf("without PTR: entries %+v, want one", es)
	}
	// An address of another host is not the receiver's.
	m := full.Copy()
	for _, rr := range m.Answer {
		if a, ok := rr.(*dns.A); ok {
			a.Hdr.Name = "other.local."
		}
	}
	if b, err := m.Pack(); err != nil || len(entries(b)) != 0 {
		t.Errorf("an address of another host made an entry (%v)", err)
	}
	// A query carrying the same records is not a response.
	m = full.Copy()
	m.Response = false
	if b, err := m.Pack(); err != nil || len(entries(b)) != 0 {
		t.Errorf("a query made an entry (%v)", err)
	}
}

// TestReportedOnce: an interface's failures reach OnSkip once per family.
func TestReportedOnce(t *testing.T) {
	var got []string
	r := newReporter(func(iface string, err error) { got = append(got, iface+": "+err.Error()) })
	for range 3 {
		r.report("eth1", "IPv4", errors.New("boom"))
		r.report("eth1", "IPv6", errors.New("bang"))
		r.report("eth2", "", errNoMulticast)
	}
	want := []string{"eth1: IPv4: boom", "eth1: IPv6: bang", "eth2: multicast is off on this interface"}
	if !slices.Equal(got, want) {
		t.Errorf("reported %q, want %q", got, want)
	}
	newReporter(nil).report("eth1", "IPv4", errors.New("boom")) // nil SkipFunc: says nothing, no panic
}

// TestLinkFailsOnMissingInterface: a socket that cannot join on its
// interface is a real setsockopt failure (no such device), reported by
// openLinks and skipped while the others open. Nothing is sent: the
// link on lo only joins.
func TestLinkFailsOnMissingInterface(t *testing.T) {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Skipf("no interface named lo (darwin calls it lo0, windows has none): %v", err)
	}
	ghost := net.Interface{Index: 99999, Name: "ghost0", Flags: net.FlagUp | net.FlagMulticast}
	l := &link{ifi: ghost, rep: newReporter(nil)}
	if err := l.open(); err == nil {
		l.conn.Close()
		t.Fatal("opened a link on an interface that does not exist")
	} else if !strings.Contains(err.Error(), "joining 224.0.0.251") {
		t.Errorf("error %q, want it to say the join failed", err)
	}

	var skipped []string
	links, err := openLinks([]net.Interface{*lo}, true, newReporter(func(iface string, err error) {
		skipped = append(skipped, iface)
	}))
	if err != nil {
		t.Fatalf("lo: %v", err)
	}
	closeLinks(links)
	if len(links) != 1 || links[0].v6 || len(skipped) != 0 {
		t.Errorf("lo: %d links (v6 %v), skipped %q; want IPv4 alone (lo has no link-local IPv6), nothing skipped",
			len(links), len(links) > 0 && links[0].v6, skipped)
	}
}
