package discovery

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/grandcat/zeroconf"

	"github.com/ferry-project/ferry/core/secure"
)

// FuzzPeerFromEntry feeds a whole entry as zeroconf's Resolver hands it
// over, every field of which a peer on the LAN chooses, to peerFromEntry
// (and so to unescaping and NewPeer, which the mobile front end uses for
// entries the phone's own browser resolved), and the result to a
// browse's table. What comes out must be safe to print, its addresses
// usable and ordered, and the peer findable by the name it is shown
// under; what is not listed must have had nothing to dial.
func FuzzPeerFromEntry(f *testing.F) {
	f.Add(`Zo\195\171\ (K7QX)`, "box.local.", "v=1\nname=Zoë\nfp=K7QX-M2PA-9RTE-WD4C", uint16(4711), uint32(3200),
		[]byte{4, 10, 0, 0, 2, 16, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0}, true)
	f.Add("", "", "", uint16(0), uint32(0), []byte{}, false)
	f.Add(`a\.b\\c\000`, "\x1b[31m.", "name=\u202e\nv=-1\nfp=x", uint16(65535), uint32(1<<32-1),
		[]byte{16, 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfb, 4, 224, 0, 0, 251}, true)
	// An A record with empty data: zeroconf hands over a nil address.
	f.Add(`no\ address\ \(N0AD\)`, "noaddr.local.", "v=2\nname=no address", uint16(4711), uint32(120), []byte{0}, false)
	f.Fuzz(func(t *testing.T, instance, host, txt string, port uint16, ttl uint32, addrs []byte, zoned bool) {
		e := zeroconf.NewServiceEntry(instance, Service, "local.")
		e.HostName = host
		e.Text = strings.Split(txt, "\n")
		e.Port = int(port)
		e.TTL = ttl
		// addrs is a run of (length, address) pairs; a length of 4 is an
		// IPv4 address, 0 a nil one (an A record with empty data), anything
		// else takes 16 bytes as IPv6.
		for len(addrs) > 0 {
			n := 16
			switch addrs[0] {
			case 4:
				n = 4
			case 0:
				e.AddrIPv4 = append(e.AddrIPv4, nil)
				addrs = addrs[1:]
				continue
			}
			addrs = addrs[1:]
			if len(addrs) < n {
				break
			}
			ip := net.IP(slices.Clone(addrs[:n]))
			if n == 4 {
				e.AddrIPv4 = append(e.AddrIPv4, ip)
			} else {
				e.AddrIPv6 = append(e.AddrIPv6, ip)
			}
			addrs = addrs[n:]
		}
		var zones []string
		if zoned {
			zones = []string{"eth0", "wlan0"}
		}
		p, ok := peerFromEntry(e, zones)
		if !ok {
			if ttl != 0 && port != 0 && slices.ContainsFunc(slices.Concat(e.AddrIPv4, e.AddrIPv6), func(ip net.IP) bool {
				return (len(ip) == 4 || len(ip) == 16) && !ip.IsUnspecified() && !ip.IsMulticast()
			}) {
				t.Fatalf("entry with a usable address not listed: %+v", e)
			}
			return
		}
		tb := newTable()
		tb.put(p)
		if l := tb.list(); len(l) != 1 || !samePeer(l[0], p) {
			t.Fatalf("table lists %+v for %+v", l, p)
		}

		for field, s := range map[string]string{"instance": p.Instance, "name": p.Name, "host": p.Host} {
			if !utf8.ValidString(s) {
				t.Fatalf("%s %q is not UTF-8", field, s)
			}
			for _, r := range s {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
					t.Fatalf("%s %q holds control character %U", field, s, r)
				}
			}
		}
		if len(p.Host) > 255 {
			t.Fatalf("host of %d bytes", len(p.Host))
		}
		if len(p.Addrs) == 0 {
			t.Fatal("listed with no address")
		}
		seenV6 := false
		for i, ip := range p.Addrs {
			if ip.IsUnspecified() || ip.IsMulticast() {
				t.Fatalf("kept unusable address %v", ip)
			}
			if ip.To4() == nil {
				seenV6 = true
			} else if seenV6 {
				t.Fatalf("IPv4 %v after an IPv6 address in %v", ip, p.Addrs)
			}
			if slices.ContainsFunc(p.Addrs[:i], ip.Equal) {
				t.Fatalf("address %v twice in %v", ip, p.Addrs)
			}
		}
		dial := p.DialAddrs()
		if len(dial) < len(p.Addrs) {
			t.Fatalf("%d dial addresses for %d addresses", len(dial), len(p.Addrs))
		}
		for _, a := range dial {
			h, ps, err := net.SplitHostPort(a)
			if err != nil || ps != strconv.Itoa(int(port)) || h == "" {
				t.Fatalf("dial address %q: host %q port %q, %v", a, h, ps, err)
			}
		}
		_ = p.String()
		if p.Name != "" && !secure.DeviceMatches(p.Name, p.Fingerprint, p.Name) {
			t.Fatalf("peer not found by its own name %q", p.Name)
		}
		if p.Fingerprint != "" && !secure.DeviceMatches(p.Name, p.Fingerprint, p.Fingerprint) {
			t.Fatalf("peer not found by its own fingerprint %q", p.Fingerprint)
		}
	})
}
