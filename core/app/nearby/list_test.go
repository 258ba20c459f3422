//go:build !js

package nearby

import (
	"encoding/json"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/discovery"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

const testFP = "K7QX-M2PA-9RTE-WD4C"

// TestListMerge: mDNS and platform reports merge by instance name,
// the platform's shadowing mDNS's, and every change is told once.
func TestListMerge(t *testing.T) {
	changes := 0
	l := NewList(func() { changes++ })
	run := l.StartRun()
	fromMDNS := Peer{
		Instance: "Laptop (K7QX)", Name: "Laptop", Fingerprint: testFP, Version: 1,
		Port: 4711, Addrs: []net.IP{net.ParseIP("10.0.0.2")},
	}
	l.Heard(run, []Peer{fromMDNS})
	fromPlatform, err := Reported("Laptop (K7QX)", "", 4712, "10.0.0.3", `{"v":"3","name":"Laptop","fp":"`+testFP+`"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Found(fromPlatform)
	l.Heard(run, []Peer{fromMDNS})
	l.Found(fromPlatform)

	if changes != 2 {
		t.Fatalf("%d changes told, want 2", changes)
	}
	v, list := l.Snapshot()
	if v != 2 {
		t.Errorf("version %d, want 2", v)
	}
	if len(list) != 1 || list[0].Source != SourcePlatform || list[0].Compatible || list[0].Addrs[0] != "10.0.0.3:4712" {
		t.Fatalf("merged list %+v", list)
	}
	if p, ok := l.Get("Laptop (K7QX)"); !ok || p.Port != 4712 {
		t.Fatalf("get: %+v, %v", p, ok)
	}
	l.Lost("Laptop (K7QX)")
	if _, list := l.Snapshot(); len(list) != 1 || list[0].Source != SourceMDNS || list[0].Addrs[0] != "10.0.0.2:4711" {
		t.Fatalf("after the platform lost it %+v", list)
	}
}

// TestListRuns: a run's receivers go with it, and a stopped run's late
// news changes nothing.
func TestListRuns(t *testing.T) {
	l := NewList(func() {})
	if _, list := l.Snapshot(); list == nil {
		t.Fatal("an empty list is nil, which encodes as null")
	}
	p := Peer{Instance: "a", Name: "a", Port: 1, Addrs: []net.IP{net.ParseIP("10.0.0.2")}}
	old := l.StartRun()
	l.Heard(old, []Peer{p})
	cur := l.StartRun()
	if _, list := l.Snapshot(); len(list) != 0 {
		t.Fatalf("a new run keeps the old one's %+v", list)
	}
	l.Heard(old, []Peer{p})
	l.EndRun(old)
	if _, list := l.Snapshot(); len(list) != 0 {
		t.Fatalf("a stopped run's news listed %+v", list)
	}
	l.Heard(cur, []Peer{p})
	l.EndRun(old)
	if _, list := l.Snapshot(); len(list) != 1 {
		t.Fatalf("ending a stopped run dropped the current one's: %+v", list)
	}
	l.EndRun(cur)
	if _, list := l.Snapshot(); len(list) != 0 {
		t.Fatalf("after its run ended %+v", list)
	}
}

// TestReported: what another browser relays is read by core/discovery's
// rules (tested there); here, that each form reaches them, and what is
// refused.
func TestReported(t *testing.T) {
	record := discovery.TXTRecord([]string{"V=3", "v=1", "name=\x1b[2JRecord", "fp=" + testFP})
	type in struct {
		instance, host string
		port           int
		addrs, js      string
		record         []byte
	}
	for _, tc := range []struct {
		name string
		in   in
		want Receiver // Addrs aside
		err  bool
	}{
		{"json, first of repeated keys wins", in{"Laptop (K7QX)", "box.local.", 4711, "10.0.0.2", `{"v":"3","V":"2","name":"Laptop","fp":"k7qxm2pa9rtewd4c"}`, nil},
			Receiver{Key: "Laptop (K7QX)", Name: "Laptop", Fingerprint: testFP, Version: 3, Host: "box.local", Port: 4711, Source: SourcePlatform}, false},
		{"record over json", in{"R", "", 1, "10.0.0.2", `{"v":"2"}`, record},
			Receiver{Key: "R", Name: "[2JRecord", Fingerprint: testFP, Version: 3, Port: 1, Source: SourcePlatform}, false},
		{"no txt", in{"\tPrinter\u202e", "", 1, "10.0.0.2", "", nil},
			Receiver{Key: "Printer", Name: "Printer", Port: 1, Source: SourcePlatform}, false},
		{"compatible", in{"P", "", 1, "10.0.0.2", `{"v":"2"}`, nil},
			Receiver{Key: "P", Name: "P", Version: 2, Compatible: true, Port: 1, Source: SourcePlatform}, false},
		{"no instance name", in{" \x00 ", "", 1, "10.0.0.2", "", nil}, Receiver{}, true},
		{"port 0", in{"P", "", 0, "10.0.0.2", "", nil}, Receiver{}, true},
		{"port over 65535", in{"P", "", 65536, "10.0.0.2", "", nil}, Receiver{}, true},
		{"no address", in{"P", "", 1, "", "", nil}, Receiver{}, true},
		{"bad json", in{"P", "", 1, "10.0.0.2", `{"v":1}`, nil}, Receiver{}, true},
		{"bad record", in{"P", "", 1, "10.0.0.2", "", []byte{9}}, Receiver{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Reported(tc.in.instance, tc.in.host, tc.in.port, tc.in.addrs, tc.in.js, tc.in.record)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if len(got.Addrs) != 1 || got.Addrs[0] != "10.0.0.2:"+strconv.Itoa(tc.in.port) {
				t.Errorf("addrs %q", got.Addrs)
			}
			got.Addrs = nil
			if !got.Same(tc.want) || got.Compatible != tc.want.Compatible {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDialAddrs(t *testing.T) {
	got, err := dialAddrs(" fe80::1%wlan0, /192.168.1.5 ,host/10.0.0.1,::ffff:192.168.1.5,[2001:db8::1]", 4711)
	if err != nil {
		t.Fatal(err)
	}
	want := "192.168.1.5:4711 10.0.0.1:4711 [fe80::1%wlan0]:4711 [2001:db8::1]:4711"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	for _, bad := range []string{"", "0.0.0.0", "224.0.0.251", "not an address"} {
		if _, err := dialAddrs(bad, 1); err == nil {
			t.Errorf("dialAddrs(%q) succeeded", bad)
		}
	}
}

// TestTrustWords: a receiver's relation to the trusted devices in both
// forms, and nothing without a store.
func TestTrustWords(t *testing.T) {
	store, err := stores.OpenTrust(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := testid.New(t)
	if err := store.Add(stores.Device{Name: "desk", Key: id.Public()}); err != nil {
		t.Fatal(err)
	}
	other := testid.New(t).Fingerprint()
	for _, tc := range []struct {
		store        *stores.Trust
		name, fp     string
		status, mark string
	}{
		{store, "desk", id.Fingerprint(), "trusted", "trusted"},
		{store, "desk", other, "key changed", "NOT the trusted device: "},
		{store, "laptop", other, "", ""},
		{nil, "desk", id.Fingerprint(), "", ""},
	} {
		status, mark := TrustWords(tc.store, tc.name, tc.fp)
		if status != tc.status || !strings.HasPrefix(mark, tc.mark) || (tc.mark == "" && mark != "") {
			t.Errorf("TrustWords(%q, %s) = %q, %q; want %q, %q", tc.name, tc.fp, status, mark, tc.status, tc.mark)
		}
	}
	e := Peer{Name: "desk", Fingerprint: other}.Event(store)
	if e.Trust != "key_changed" || e.Addresses == nil {
		t.Errorf("event %+v, want trust key_changed and addresses a list", e)
	}
}

// FuzzReported feeds a whole relayed answer from another DNS-SD browser,
// peer input, to Reported, so that a panic fails. What it accepts must
// have a key, a port in range, and addresses that parse back as IP:port
// with that port, IPv4 first and none twice; and its JSON form must
// encode.
func FuzzReported(f *testing.F) {
	f.Add("Laptop (K7QX)", "box.local.", 4712, "10.0.0.3, /fe80::1%wlan0,host/10.0.0.3", `{"v":"1","name":"Laptop","fp":"`+testFP+`"}`, []byte(nil))
	f.Add("R", "", 1, "[::ffff:10.0.0.1],::1", "", discovery.TXTRecord([]string{"V=3", "v=1", "name=\x1b[2JRecord", "fp=" + testFP}))
	f.Add("", "h", 0, "", "{}", []byte{})
	f.Add("x", "h", 65536, "0.0.0.0,ff02::fb", "null", []byte{0})
	f.Fuzz(func(t *testing.T, instance, host string, port int, addrs, txtJSON string, txtRec []byte) {
		p, err := Reported(instance, host, port, addrs, txtJSON, txtRec)
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
			t.Fatalf("list entry does not encode: %v", err)
		}
	})
}

// TestMerge: typed receivers follow the found ones, but for one a
// browse has found since at its address.
func TestMerge(t *testing.T) {
	at := func(addrs []string) []string { return addrs }
	found := [][]string{{"10.0.0.2:1", "[fe80::1%eth0]:1"}, {"10.0.0.3:1"}}
	typed := [][]string{{"[fe80::1%eth0]:1"}, {"10.0.0.9:1"}, {}}
	got := Merge(found, typed, at)
	want := [][]string{{"10.0.0.2:1", "[fe80::1%eth0]:1"}, {"10.0.0.3:1"}, {"10.0.0.9:1"}, {}}
	if len(got) != len(want) {
		t.Fatalf("merged %q, want %q", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("merged %q, want %q", got, want)
		}
	}
}
