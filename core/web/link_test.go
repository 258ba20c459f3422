package web

import (
	"net"
	"testing"
)

// TestLinkRoundTrip: ParseLink reads what Link writes, for IPv4, IPv6
// and a name, and refuses a link without a code, a host or a port.
func TestLinkRoundTrip(t *testing.T) {
	for _, host := range []string{"192.168.1.23", "fd00::1", "desk.local"} {
		s := Link(host, 41000, "482913", "K7QX-M2PA-9RTE-WD4C")
		l, err := ParseLink(s)
		if err != nil {
			t.Fatalf("ParseLink(%q): %v", s, err)
		}
		want := net.JoinHostPort(host, "41000")
		if l.Addr != want || l.Code != "482913" || l.Fingerprint != "K7QX-M2PA-9RTE-WD4C" {
			t.Errorf("ParseLink(%q) = %+v", s, l)
		}
	}
	if l, err := ParseLink("ferry://10.0.0.7:41000?code=654321&fp=K7QX"); err != nil || l != (Target{Addr: "10.0.0.7:41000", Code: "654321", Fingerprint: "K7QX"}) {
		t.Errorf("legacy link: %+v, %v", l, err)
	}
	for _, bad := range []string{"http://x:1?code=1", "http://x:1/#fp=K7QX", "ftp://x:1/#code=1", "ferry://nohost?code=1", "ferry://:41000", "%%"} {
		if _, err := ParseLink(bad); err == nil {
			t.Errorf("ParseLink(%q) succeeded", bad)
		}
	}
}

// TestLinks: one link per host, in order, and one for localhost when
// there is no host, so that a front end always has a link to show.
func TestLinks(t *testing.T) {
	got := Links([]string{"192.168.1.23", "fd00::1"}, 41000, "482913", "K7QX")
	want := []string{Link("192.168.1.23", 41000, "482913", "K7QX"), Link("fd00::1", 41000, "482913", "K7QX")}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Links = %q, want %q", got, want)
	}
	if got := Links(nil, 41000, "482913", "K7QX"); len(got) != 1 || got[0] != Link("localhost", 41000, "482913", "K7QX") {
		t.Errorf("Links without a host = %q", got)
	}
}
