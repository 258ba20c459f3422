//go:build !js

package nearby

import (
	"net"
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
