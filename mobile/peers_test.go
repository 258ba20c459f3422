package mobile

import (
	"encoding/json"
	"net"
	"strconv"
	"testing"

	"github.com/ferry-project/ferry/core/app/nearby"
)

// TestPeerTableMerge: mDNS and platform reports merge by instance name,
// the platform's shadowing mDNS's, and every change is told once.
func TestPeerTableMerge(t *testing.T) {
	changes := 0
	tab := newPeerTable(func() { changes++ })
	fromMDNS := mdnsPeer(nearby.Peer{
		Instance: "Laptop (K7QX)", Name: "Laptop", Fingerprint: testFP, Version: 1,
		Port: 4711, Addrs: []net.IP{net.ParseIP("10.0.0.2")},
	})
	tab.update(func() bool { tab.mdns[fromMDNS.Key] = fromMDNS; return true })
	fromPlatform, err := platformPeer(&PlatformPeer{
		InstanceName: "Laptop (K7QX)", Port: 4712, Addrs: "10.0.0.3", TxtJSON: `{"v":"3","name":"Laptop","fp":"` + testFP + `"}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	tab.update(func() bool { tab.platform[fromPlatform.Key] = fromPlatform; return true })
	tab.update(func() bool { return false })

	if changes != 2 {
		t.Fatalf("%d changes told, want 2", changes)
	}
	v, got := tab.snapshot()
	if v != 2 {
		t.Errorf("version %d, want 2", v)
	}
	var list []peer
	if err := json.Unmarshal([]byte(got), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Source != sourcePlatform || list[0].Compatible || list[0].Addrs[0] != "10.0.0.3:4712" {
		t.Fatalf("merged list %s", got)
	}
	if p, ok := tab.get("Laptop (K7QX)"); !ok || p.Port != 4712 {
		t.Fatalf("get: %+v, %v", p, ok)
	}
}

// TestPlatformPeer: what the app relays is read by core/discovery's rules
// (tested there); here, that each form reaches them, and what is refused.
func TestPlatformPeer(t *testing.T) {
	record := txtRecord([]string{"V=3", "v=1", "name=\x1b[2JRecord", "fp=" + testFP})
	for _, tc := range []struct {
		name string
		in   PlatformPeer
		want peer // Addrs aside
		err  bool
	}{
		{"json, first of repeated keys wins", PlatformPeer{InstanceName: "Laptop (K7QX)", Host: "box.local.", Port: 4711, Addrs: "10.0.0.2",
			TxtJSON: `{"v":"3","V":"2","name":"Laptop","fp":"k7qxm2pa9rtewd4c"}`},
			peer{Key: "Laptop (K7QX)", Name: "Laptop", Fingerprint: testFP, Version: 3, Host: "box.local", Port: 4711, Source: sourcePlatform}, false},
		{"record over json", PlatformPeer{InstanceName: "R", Port: 1, Addrs: "10.0.0.2", TxtRecord: record, TxtJSON: `{"v":"2"}`},
			peer{Key: "R", Name: "[2JRecord", Fingerprint: testFP, Version: 3, Port: 1, Source: sourcePlatform}, false},
		{"no txt", PlatformPeer{InstanceName: "\tPrinter\u202e", Port: 1, Addrs: "10.0.0.2"},
			peer{Key: "Printer", Name: "Printer", Port: 1, Source: sourcePlatform}, false},
		{"compatible", PlatformPeer{InstanceName: "P", Port: 1, Addrs: "10.0.0.2", TxtJSON: `{"v":"2"}`},
			peer{Key: "P", Name: "P", Version: 2, Compatible: true, Port: 1, Source: sourcePlatform}, false},
		{"no instance name", PlatformPeer{InstanceName: " \x00 ", Port: 1, Addrs: "10.0.0.2"}, peer{}, true},
		{"port 0", PlatformPeer{InstanceName: "P", Port: 0, Addrs: "10.0.0.2"}, peer{}, true},
		{"port over 65535", PlatformPeer{InstanceName: "P", Port: 65536, Addrs: "10.0.0.2"}, peer{}, true},
		{"no address", PlatformPeer{InstanceName: "P", Port: 1}, peer{}, true},
		{"bad json", PlatformPeer{InstanceName: "P", Port: 1, Addrs: "10.0.0.2", TxtJSON: `{"v":1}`}, peer{}, true},
		{"bad record", PlatformPeer{InstanceName: "P", Port: 1, Addrs: "10.0.0.2", TxtRecord: []byte{9}}, peer{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := platformPeer(&tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if len(got.Addrs) != 1 || got.Addrs[0] != "10.0.0.2:"+strconv.Itoa(tc.in.Port) {
				t.Errorf("addrs %q", got.Addrs)
			}
			got.Addrs = nil
			if !samePeer(got, tc.want) || got.Compatible != tc.want.Compatible {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
