package discovery

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTableExpiry walks one table through a made-up timeline: the clock
// is a value passed in, never the wall clock.
func TestTableExpiry(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	peer := func(name string, expires time.Time) Peer {
		return Peer{Name: name, Instance: name, Port: 1, Addrs: []net.IP{net.IPv4(10, 0, 0, 1)}, Expires: expires}
	}
	tb := newTable()
	if _, ok := tb.next(); ok {
		t.Fatal("empty table has a next expiry")
	}
	steps := []struct {
		what    string
		do      func() bool
		changed bool
		names   []string
		next    int // seconds; -1 for none
	}{
		{"add b", func() bool { return tb.put("b", peer("b", at(120))) }, true, []string{"b"}, 120},
		{"add a", func() bool { return tb.put("a", peer("a", at(10))) }, true, []string{"a", "b"}, 10},
		{"refresh a: no change", func() bool { return tb.put("a", peer("a", at(100))) }, false, []string{"a", "b"}, 100},
		{"expire before anything lapses", func() bool { return tb.expire(at(99)) }, false, []string{"a", "b"}, 100},
		{"expire exactly at a's end", func() bool { return tb.expire(at(100)) }, true, []string{"b"}, 120},
		{"update b's port: a change", func() bool { p := peer("b", at(130)); p.Port = 2; return tb.put("b", p) }, true, []string{"b"}, 130},
		{"goodbye for unknown", func() bool { return tb.remove("zz") }, false, []string{"b"}, 130},
		{"goodbye for b", func() bool { return tb.remove("b") }, true, nil, -1},
	}
	for _, s := range steps {
		if got := s.do(); got != s.changed {
			t.Errorf("%s: changed = %v, want %v", s.what, got, s.changed)
		}
		var names []string
		for _, p := range tb.list() {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, s.names) {
			t.Errorf("%s: list = %q, want %q", s.what, names, s.names)
		}
		next, ok := tb.next()
		if s.next < 0 && ok || s.next >= 0 && (!ok || !next.Equal(at(s.next))) {
			t.Errorf("%s: next = %v %v, want %ds", s.what, next, ok, s.next)
		}
	}
}

func TestTableOrder(t *testing.T) {
	tb := newTable()
	tb.put("1", Peer{Instance: "1", Name: "b", Fingerprint: "A"})
	tb.put("2", Peer{Instance: "2", Name: "a", Fingerprint: "Z"})
	tb.put("3", Peer{Instance: "3", Name: "b", Fingerprint: "0"})
	tb.put("4", Peer{Instance: "4", Name: "a", Fingerprint: "A"})
	var got []string
	for _, p := range tb.list() {
		got = append(got, p.Instance)
	}
	if want := "4 2 3 1"; strings.Join(got, " ") != want {
		t.Errorf("order = %s, want %s", strings.Join(got, " "), want)
	}
}

// TestTableUnionOfInterfaces: a receiver heard on two interfaces, each
// with its own address, is listed once with both, in a fixed order, and
// repeated answers change nothing; an interface that stops hearing it
// drops its address once its answer lapses.
func TestTableUnionOfInterfaces(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	a4, b4, a6 := net.IPv4(10, 0, 1, 1).To4(), net.IPv4(10, 0, 2, 1).To4(), net.ParseIP("fe80::1")
	heard := func(expires time.Time, zone string, ips ...net.IP) Peer {
		return Peer{Name: "desk", Instance: "desk", Port: 1, Addrs: ips, Expires: expires, zones: []string{zone}}
	}
	tb := newTable()
	addrs := func() []net.IP { return tb.list()[0].Addrs }
	if !tb.putVia("desk", "wlan0", heard(at(120), "wlan0", b4), at(0)) {
		t.Error("first answer: no change")
	}
	if !tb.putVia("desk", "eth0", heard(at(121), "eth0", a4, a6), at(1)) {
		t.Error("second interface's answer: no change")
	}
	// eth0 sorts before wlan0; IPv4 first.
	if want := []net.IP{a4, b4, a6}; !slices.EqualFunc(addrs(), want, net.IP.Equal) {
		t.Errorf("addresses %v, want %v", addrs(), want)
	}
	if p := tb.list()[0]; !p.Expires.Equal(at(121)) || !slices.Equal(p.zones, []string{"eth0", "wlan0"}) {
		t.Errorf("expires %v zones %v", p.Expires, p.zones)
	}
	for i := range 4 { // answers alternating between the interfaces
		via, p := "wlan0", heard(at(130+i), "wlan0", b4)
		if i%2 == 1 {
			via, p = "eth0", heard(at(130+i), "eth0", a4, a6)
		}
		if tb.putVia("desk", via, p, at(10+i)) {
			t.Errorf("answer %d on %s changed the listing to %v", i, via, addrs())
		}
	}
	// wlan0 last heard it with an expiry of 132; past that, its address goes.
	if !tb.putVia("desk", "eth0", heard(at(300), "eth0", a4, a6), at(200)) {
		t.Error("lapsed interface dropped: no change")
	}
	if want := []net.IP{a4, a6}; !slices.EqualFunc(addrs(), want, net.IP.Equal) {
		t.Errorf("addresses %v, want %v", addrs(), want)
	}
	if !tb.remove("desk") || len(tb.views) != 0 {
		t.Errorf("remove left views %v", tb.views)
	}
}
