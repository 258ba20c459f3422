package mobile

import (
	"encoding/json"
	"net"
	"testing"

	"github.com/ferry-project/ferry/core/discovery"
)

// TestPeerTableMerge: mDNS and platform reports merge by instance name,
// the platform's shadowing mDNS's, and every change reaches OnPeers once.
func TestPeerTableMerge(t *testing.T) {
	var got []string
	tab := newPeerTable(func(js string) { got = append(got, js) })
	fromMDNS := mdnsPeer(discovery.Peer{
		Instance: "Laptop (K7QX)", Name: "Laptop", Fingerprint: testFP, Version: 1,
		Port: 4711, Addrs: []net.IP{net.ParseIP("10.0.0.2")},
	})
	tab.update(func() bool { tab.mdns[fromMDNS.Key] = fromMDNS; return true })
	fromPlatform, err := platformPeer(&PlatformPeer{
		InstanceName: "Laptop (K7QX)", Port: 4712, Addrs: "10.0.0.3", TxtJSON: `{"v":"2","name":"Laptop","fp":"` + testFP + `"}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	tab.update(func() bool { tab.platform[fromPlatform.Key] = fromPlatform; return true })
	tab.update(func() bool { return false })

	if len(got) != 2 {
		t.Fatalf("%d OnPeers calls, want 2", len(got))
	}
	var list []peer
	if err := json.Unmarshal([]byte(got[1]), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Source != sourcePlatform || list[0].Compatible || list[0].Addrs[0] != "10.0.0.3:4712" {
		t.Fatalf("merged list %s", got[1])
	}
	if p, ok := tab.get("Laptop (K7QX)"); !ok || p.Port != 4712 {
		t.Fatalf("get: %+v, %v", p, ok)
	}
}
