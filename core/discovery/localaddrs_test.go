package discovery

import (
	"net"
	"testing"
)

func TestHostAddrs(t *testing.T) {
	all, err := HostAddrs(nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, "all", all)
	for _, ip := range all {
		if ip.IsLoopback() {
			t.Errorf("all: loopback %v listed without naming its interface", ip)
		}
		if ip.To4() == nil && ip.IsLinkLocalUnicast() {
			t.Errorf("all: IPv6 link-local %v listed", ip)
		}
	}

	lo, err := HostAddrs([]string{"lo"})
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, "lo", lo)
	if len(lo) == 0 || !lo[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("lo: %v, want 127.0.0.1 first", lo)
	}

	none, err := HostAddrs([]string{"no-such-if0"})
	if err != nil || len(none) != 0 {
		t.Errorf("unknown interface: %v, %v; want nothing and no error", none, err)
	}
}

// checkOrder wants IPv4 addresses, in their 4-byte form, before IPv6 ones.
func checkOrder(t *testing.T, what string, ips []net.IP) {
	t.Helper()
	seenV6 := false
	for _, ip := range ips {
		switch {
		case len(ip) == net.IPv4len && seenV6:
			t.Errorf("%s: IPv4 %v after an IPv6 address in %v", what, ip, ips)
		case len(ip) == net.IPv4len:
		case ip.To4() != nil:
			t.Errorf("%s: IPv4 %v in its 16-byte form", what, ip)
		default:
			seenV6 = true
		}
	}
}
