package discovery

import (
	"slices"
	"testing"

	"github.com/miekg/dns"
)

func TestGoodbyes(t *testing.T) {
	const inst = `Zo\195\171\ \(K7QX\)` // as miekg/dns unpacks it
	ptr := func(ttl uint32, name, target string) dns.RR {
		return &dns.PTR{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypePTR, Class: dns.ClassINET, Ttl: ttl}, Ptr: target}
	}
	srv := func(ttl uint32, name string) dns.RR {
		return &dns.SRV{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeSRV, Class: dns.ClassINET, Ttl: ttl}, Target: "h.local.", Port: 1}
	}
	full := inst + "." + serviceFQDN
	tests := []struct {
		name     string
		response bool
		rrs      []dns.RR
		want     []string
	}{
		{"ptr goodbye", true, []dns.RR{ptr(0, serviceFQDN, full)}, []string{inst}},
		{"srv goodbye, deduplicated", true, []dns.RR{srv(0, full), ptr(0, serviceFQDN, full)}, []string{inst}},
		{"case-insensitive service", true, []dns.RR{ptr(0, "_FERRY._tcp.local.", inst+"._FERRY._tcp.local.")}, []string{inst}},
		{"live record", true, []dns.RR{ptr(120, serviceFQDN, full)}, nil},
		{"other service", true, []dns.RR{ptr(0, "_http._tcp.local.", "x._http._tcp.local.")}, nil},
		{"ptr to another service", true, []dns.RR{ptr(0, serviceFQDN, "x._http._tcp.local.")}, nil},
		{"query, not response", false, []dns.RR{ptr(0, serviceFQDN, full)}, nil},
	}
	for _, tt := range tests {
		m := new(dns.Msg)
		m.Response = tt.response
		m.Answer = tt.rrs
		pkt, err := m.Pack()
		if err != nil {
			t.Fatal(err)
		}
		if got := goodbyes(pkt); !slices.Equal(got, tt.want) {
			t.Errorf("%s: goodbyes = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, junk := range [][]byte{nil, {0}, []byte("not dns at all, not at all")} {
		if got := goodbyes(junk); got != nil {
			t.Errorf("goodbyes(%q) = %q", junk, got)
		}
	}
}

// FuzzGoodbyes feeds raw packets, as they come off the multicast socket.
func FuzzGoodbyes(f *testing.F) {
	m := new(dns.Msg)
	m.Response = true
	m.Answer = []dns.RR{&dns.PTR{Hdr: dns.RR_Header{Name: serviceFQDN, Rrtype: dns.TypePTR, Class: dns.ClassINET}, Ptr: "a." + serviceFQDN}}
	pkt, _ := m.Pack()
	f.Add(pkt)
	f.Fuzz(func(t *testing.T, pkt []byte) {
		for _, inst := range goodbyes(pkt) {
			if inst == "" {
				t.Error("empty instance")
			}
		}
	})
}
