package discovery

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
)

// TestTableRounds walks one table through rounds: a peer stays while it
// was heard in the current round or the one before, and a repeat that
// says nothing new is not a change.
func TestTableRounds(t *testing.T) {
	peer := func(name string, port int) Peer {
		return Peer{Name: name, Instance: name, Port: port, Addrs: []net.IP{net.IPv4(10, 0, 0, 1).To4()}}
	}
	tb := newTable()
	steps := []struct {
		what    string
		do      func() bool
		changed bool
		names   []string
	}{
		{"round 0: add b", func() bool { return tb.put(peer("b", 1)) }, true, []string{"b"}},
		{"round 0: add a", func() bool { return tb.put(peer("A", 1)) }, true, []string{"A", "b"}},
		{"round 0: A again", func() bool { return tb.put(peer("A", 1)) }, false, []string{"A", "b"}},
		{"sweep of round 0", tb.sweep, false, []string{"A", "b"}},
		{"round 1: b heard, new port", func() bool { tb.advance(); return tb.put(peer("b", 2)) }, true, []string{"A", "b"}},
		{"sweep of round 1: A missed once", tb.sweep, false, []string{"A", "b"}},
		{"sweep of round 2: A missed twice", func() bool { tb.advance(); return tb.sweep() }, true, []string{"b"}},
		{"round 2: a late answer from A brings it back", func() bool { return tb.put(peer("A", 1)) }, true, []string{"A", "b"}},
		{"sweep of round 4: both missed twice", func() bool { tb.advance(); tb.advance(); return tb.sweep() }, true, nil},
		{"sweep of round 5: nothing left", func() bool { tb.advance(); return tb.sweep() }, false, nil},
		{"round 5: b is back", func() bool { return tb.put(peer("b", 2)) }, true, []string{"b"}},
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
	}
}

func TestTableOrder(t *testing.T) {
	tb := newTable()
	tb.put(Peer{Instance: "1", Name: "b", Fingerprint: "A"})
	tb.put(Peer{Instance: "2", Name: "a", Fingerprint: "Z"})
	tb.put(Peer{Instance: "3", Name: "b", Fingerprint: "0"})
	tb.put(Peer{Instance: "4", Name: "a", Fingerprint: "A"})
	var got []string
	for _, p := range tb.list() {
		got = append(got, p.Instance)
	}
	if want := "4 2 3 1"; strings.Join(got, " ") != want {
		t.Errorf("order = %s, want %s", strings.Join(got, " "), want)
	}
}

// TestTableAddresses: a receiver heard with different addresses in
// different rounds (two networks, zeroconf passing on the first answer
// of each round) is listed once with all of them, IPv4 first; an
// address drops out when two rounds in a row did not hear it.
func TestTableAddresses(t *testing.T) {
	a4, b4, a6 := net.IPv4(10, 0, 1, 1).To4(), net.IPv4(10, 0, 2, 1).To4(), net.ParseIP("fe80::1")
	heard := func(ips ...net.IP) Peer { return Peer{Instance: "r", Name: "r", Port: 1, Addrs: ips} }
	tb := newTable()
	addrs := func() []net.IP {
		l := tb.list()
		if len(l) != 1 {
			t.Fatalf("listed %d peers, want 1", len(l))
		}
		return l[0].Addrs
	}
	want := func(what string, ips ...net.IP) {
		t.Helper()
		if got := addrs(); !slices.EqualFunc(got, ips, net.IP.Equal) {
			t.Errorf("%s: addresses %v, want %v", what, got, ips)
		}
	}
	tb.put(heard(a6, a4))
	want("round 0", a4, a6)
	tb.advance()
	if tb.put(heard(b4)) != true {
		t.Error("a new address is a change")
	}
	want("round 1 adds b4", a4, b4, a6)
	if tb.put(heard(b4)) {
		t.Error("the same answer twice is a change")
	}
	if tb.sweep() {
		t.Error("sweep of round 1 changed something")
	}
	tb.advance()
	tb.put(heard(b4))
	want("round 2, before its sweep", a4, b4, a6)
	if !tb.sweep() {
		t.Error("losing addresses is a change")
	}
	want("after the sweep of round 2: a4 and a6 missed twice", b4)
}

// TestTableCap: a full table leaves a newcomer out while every receiver
// in it was heard this round, and otherwise makes room by dropping the
// one heard longest ago; a receiver heard again in the round keeps its
// place.
func TestTableCap(t *testing.T) {
	tb := newTable()
	peer := func(i int) Peer { return Peer{Instance: fmt.Sprint("p", i), Name: fmt.Sprint("p", i)} }
	for i := range maxPeers {
		if !tb.put(peer(i)) {
			t.Fatalf("peer %d left out of a table of %d", i, len(tb.peers))
		}
	}
	if tb.put(peer(maxPeers)) || len(tb.peers) != maxPeers {
		t.Fatalf("a newcomer to a table full of this round's receivers was taken (%d listed)", len(tb.peers))
	}
	tb.advance()
	tb.put(peer(0)) // the real receiver answers at the round's start
	for i := range 2 * maxPeers {
		tb.put(peer(1000 + i))
	}
	if len(tb.list()) != maxPeers {
		t.Fatalf("%d listed, over the cap of %d", len(tb.list()), maxPeers)
	}
	if _, ok := tb.peers["p0"]; !ok {
		t.Error("the receiver heard this round was pushed out")
	}
	if _, ok := tb.peers["p1"]; ok {
		t.Error("a receiver not heard this round outlived the newcomers")
	}
	// 255 stale receivers made room for as many newcomers; then the
	// table was full of this round's.
	if _, ok := tb.peers[fmt.Sprint("p", 1000+maxPeers-2)]; !ok {
		t.Error("the last newcomer room was made for is missing")
	}
	if _, ok := tb.peers[fmt.Sprint("p", 1000+maxPeers-1)]; ok {
		t.Error("a newcomer pushed out a receiver heard this round")
	}
}
