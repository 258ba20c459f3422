package mobile

import (
	"encoding/json"
	"net/netip"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzPlatformPeer feeds a whole PlatformPeer, what the app relays from
// the phone's own DNS-SD browser and so peer input, to platformPeer. The
// exported PeerFound would turn a panic into an error; this calls the
// converter directly so that a panic fails. What it accepts must have a
// key, a port in range, and addresses that parse back as IP:port with
// that port, IPv4 first and none twice; and its JSON form must encode.
func FuzzPlatformPeer(f *testing.F) {
	f.Add("Laptop (K7QX)", "box.local.", 4712, "10.0.0.3, /fe80::1%wlan0,host/10.0.0.3", `{"v":"1","name":"Laptop","fp":"`+testFP+`"}`, []byte(nil))
	f.Add("R", "", 1, "[::ffff:10.0.0.1],::1", "", txtRecord([]string{"V=3", "v=1", "name=\x1b[2JRecord", "fp=" + testFP}))
	f.Add("", "h", 0, "", "{}", []byte{})
	f.Add("x", "h", 65536, "0.0.0.0,ff02::fb", "null", []byte{0})
	f.Fuzz(func(t *testing.T, instance, host string, port int, addrs, txtJSON string, txtRec []byte) {
		p, err := platformPeer(&PlatformPeer{InstanceName: instance, Host: host, Port: port, Addrs: addrs, TxtJSON: txtJSON, TxtRecord: txtRec})
		if err != nil {
			return
		}
		if p.Key == "" || !utf8.ValidString(p.Key) || !utf8.ValidString(p.Name) || !utf8.ValidString(p.Host) {
			t.Fatalf("accepted with key %q, name %q, host %q", p.Key, p.Name, p.Host)
		}
		if p.Port != port || port <= 0 || port > 65535 {
			t.Fatalf("accepted port %d as %d", port, p.Port)
		}
		if len(p.Addrs) == 0 {
			t.Fatal("accepted a peer with no address")
		}
		seenV6 := false
		var seen []netip.Addr
		for _, a := range p.Addrs {
			ap, err := netip.ParseAddrPort(a)
			if err != nil || int(ap.Port()) != port {
				t.Fatalf("address %q of %q: %v", a, addrs, err)
			}
			ip := ap.Addr()
			if ip.Is4() && seenV6 {
				t.Fatalf("IPv4 after IPv6 in %q", p.Addrs)
			}
			seenV6 = seenV6 || !ip.Is4()
			if ip.IsUnspecified() || ip.IsMulticast() || ip.Is4In6() || slices.Contains(seen, ip) {
				t.Fatalf("kept %v in %q from %q", ip, p.Addrs, addrs)
			}
			seen = append(seen, ip)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("peer list entry does not encode: %v", err)
		}
	})
}
