//go:build !js

package nearby

import (
	"net"
	"slices"
	"testing"
)

// A peer from another browser's answer is read as a browse would.
func TestNewPeerDoor(t *testing.T) {
	instance, txt := Advertisement("desk", "K7QX-M2PA-9RTE-WD4C")
	p := NewPeer(instance, "desk.local.", txt)
	if p.Name != "desk" || p.Fingerprint != "K7QX-M2PA-9RTE-WD4C" || !p.Compatible() {
		t.Fatalf("NewPeer = %+v", p)
	}
	p.Port, p.Addrs = 4711, []net.IP{net.IPv4(10, 0, 0, 2)}
	if got := p.DialAddrs(); len(got) != 1 || got[0] != "10.0.0.2:4711" {
		t.Errorf("DialAddrs = %q", got)
	}
	if s := p.String(); s != `"desk" (K7QX-M2PA-9RTE-WD4C) at 10.0.0.2:4711` {
		t.Errorf("String = %s", s)
	}
}

// A receiver's link reads back as what it was made of.
func TestLinkDoor(t *testing.T) {
	l, err := ParseLink(PageLink("10.0.0.7", 41000, LinkCode(), "K7QX-M2PA-9RTE-WD4C"))
	if err != nil || l.Addr != "10.0.0.7:41000" || len(l.Code) != 12 || l.Fingerprint != "K7QX-M2PA-9RTE-WD4C" {
		t.Errorf("ParseLink = %+v, %v", l, err)
	}
}

func TestShownAddrs(t *testing.T) {
	if got := ShownAddrs("127.0.0.1", nil, false); len(got) != 1 || got[0] != "127.0.0.1" {
		t.Errorf("listen host: %v", got)
	}
	for _, a := range ShownAddrs("", nil, false) {
		if ip := net.ParseIP(a); ip == nil || ip.IsLoopback() {
			t.Errorf("shown address %q", a)
		}
	}
	got := ShownAddrs("", []string{"lo"}, false)
	if len(got) == 0 || got[0] != "127.0.0.1" {
		t.Errorf("--iface lo: %v", got)
	}
	for _, a := range ShownAddrs("0.0.0.0", []string{"lo"}, false) {
		if ip := net.ParseIP(a); ip == nil || ip.To4() == nil {
			t.Errorf("--listen 0.0.0.0 shows %q, want IPv4 only", a)
		}
	}
}

func TestUnknownIface(t *testing.T) {
	if name, known := UnknownIface([]string{"lo"}); name != "" || known != nil {
		t.Errorf("lo: %q, %v; want every name known", name, known)
	}
	name, known := UnknownIface([]string{"lo", "no-such-iface0"})
	if name != "no-such-iface0" || !slices.Contains(known, "lo") {
		t.Errorf("got %q with %v, want no-such-iface0 with lo among the known", name, known)
	}
}
