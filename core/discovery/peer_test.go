package discovery

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/grandcat/zeroconf"
)

func TestDialAddrs(t *testing.T) {
	p := Peer{
		Port:  4711,
		Addrs: []net.IP{net.ParseIP("10.0.0.2").To4(), net.ParseIP("fe80::1"), net.ParseIP("2001:db8::1")},
		zones: []string{"eth0", "wlan0"},
	}
	want := []string{"10.0.0.2:4711", "[fe80::1%eth0]:4711", "[fe80::1%wlan0]:4711", "[2001:db8::1]:4711"}
	if got := p.DialAddrs(); !slices.Equal(got, want) {
		t.Errorf("DialAddrs = %q, want %q", got, want)
	}
	p.zones = nil
	want = []string{"10.0.0.2:4711", "[fe80::1]:4711", "[2001:db8::1]:4711"}
	if got := p.DialAddrs(); !slices.Equal(got, want) {
		t.Errorf("DialAddrs without zones = %q, want %q", got, want)
	}
	if got := (Peer{Port: 1}).DialAddrs(); len(got) != 0 {
		t.Errorf("DialAddrs without addresses = %q", got)
	}
}

func TestNewPeer(t *testing.T) {
	const fp = "K7QX-M2PA-9RTE-WD4C"
	tests := []struct {
		name           string
		instance, host string
		txt            []string
		want           Peer
	}{
		{"ours", "Zoë (K7QX)", "box.local.", TXTStrings("Zoë", fp),
			Peer{Instance: "Zoë (K7QX)", Name: "Zoë", Fingerprint: fp, Version: ProtocolVersion, Host: "box.local"}},
		{"name falls back to instance", `Printer\x`, "", []string{"v=3"},
			Peer{Instance: `Printer\x`, Name: `Printer\x`, Version: 3}},
		{"no txt", "a", "b", nil, Peer{Instance: "a", Name: "a", Host: "b"}},
		{"names cleaned", " evil\x1b[2J\u202e ", "h\tost\x00.", []string{"name=\x1b]0;x\x07"},
			Peer{Instance: "evil [2J", Name: "]0;x", Host: "h ost"}},
		{"invalid bytes widened, not cut", strings.Repeat("\xffa", 31), "", nil,
			Peer{Instance: strings.Repeat("\uFFFDa", 31), Name: strings.Repeat("\uFFFDa", 31)}},
		{"overlong instance cut", strings.Repeat("x", 300), "", nil,
			Peer{Instance: strings.Repeat("x", 4*63), Name: strings.Repeat("x", 4*63)}},
		{"empty", "", "", nil, Peer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewPeer(tt.instance, tt.host, tt.txt); !samePeer(got, tt.want) {
				t.Errorf("NewPeer(%q, %q, %q) = %s, want %s", tt.instance, tt.host, tt.txt, fields(got), fields(tt.want))
			}
		})
	}
}

// fields shows what NewPeer fills in (Peer's String shows less).
func fields(p Peer) string {
	return fmt.Sprintf("{Instance:%q Name:%q Fingerprint:%q Version:%d Host:%q}", p.Instance, p.Name, p.Fingerprint, p.Version, p.Host)
}

// TestPeerFromEntry: what zeroconf resolved is unescaped, then read by
// NewPeer's rules; addresses are filtered, and an entry with nothing to
// dial, or a goodbye, is not a peer.
func TestPeerFromEntry(t *testing.T) {
	e := zeroconf.NewServiceEntry(`Zo\195\171\ (K7QX)`, Service, "local.")
	e.HostName = "box.local."
	e.Port = 4711
	e.TTL = 3200
	e.Text = escapeTXT(TXTStrings("Zoë", "K7QX-M2PA-9RTE-WD4C"))
	e.AddrIPv6 = []net.IP{net.ParseIP("fe80::1"), net.ParseIP("ff02::fb"), nil}
	e.AddrIPv4 = []net.IP{net.ParseIP("10.0.0.2"), net.IPv4zero, net.ParseIP("10.0.0.2").To4(), {1, 2, 3}}
	p, ok := peerFromEntry(e, []string{"eth0"})
	want := Peer{
		Instance: "Zoë (K7QX)", Name: "Zoë", Fingerprint: "K7QX-M2PA-9RTE-WD4C", Version: ProtocolVersion,
		Host: "box.local", Port: 4711,
		Addrs: []net.IP{net.ParseIP("10.0.0.2").To4(), net.ParseIP("fe80::1")},
	}
	if !ok || !samePeer(p, want) || !slices.Equal(p.zones, []string{"eth0"}) {
		t.Errorf("peerFromEntry = %+v %v, want %+v", p, ok, want)
	}

	for _, tt := range []struct {
		what string
		edit func(e *zeroconf.ServiceEntry)
	}{
		{"only unusable addresses", func(e *zeroconf.ServiceEntry) {
			e.AddrIPv4, e.AddrIPv6 = []net.IP{nil, net.IPv4zero, net.IPv4(224, 0, 0, 251)}, []net.IP{net.IPv6unspecified}
		}},
		{"no addresses", func(e *zeroconf.ServiceEntry) { e.AddrIPv4, e.AddrIPv6 = nil, nil }},
		{"a goodbye", func(e *zeroconf.ServiceEntry) { e.TTL = 0 }},
		{"port 0", func(e *zeroconf.ServiceEntry) { e.Port = 0 }},
	} {
		c := *e
		tt.edit(&c)
		if p, ok := peerFromEntry(&c, nil); ok {
			t.Errorf("%s: listed as %+v", tt.what, p)
		}
	}
	if _, ok := peerFromEntry(nil, nil); ok {
		t.Error("a nil entry is a peer")
	}
}
