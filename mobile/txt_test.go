package mobile

import (
	"encoding/json"
	"testing"

	"github.com/ferry-project/ferry/core/app/nearby"
)

const testFP = "K7QX-M2PA-9RTE-WD4C"

// TestAdvertisementRoundTrip: what a receiver registers with the
// platform, relayed back in either form the platform gives, lists the
// device core/app advertises.
func TestAdvertisementRoundTrip(t *testing.T) {
	adv := newAdvertisement("Zoë's\tphone\u202e", testFP, 4711)
	if adv.ServiceType != "_ferry._tcp" || adv.Port != 4711 {
		t.Fatalf("advertisement %+v", adv)
	}
	if adv.InstanceName != instanceName("Zoë's phone", testFP) {
		t.Fatalf("instance %q", adv.InstanceName)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(adv.TxtJSON), &m); err != nil {
		t.Fatal(err)
	}
	if m["v"] != "2" || m["name"] != "Zoë's phone" || m["fp"] != testFP || len(m) != 3 {
		t.Fatalf("txt json %v", m)
	}
	for _, relayed := range []PlatformPeer{{TxtRecord: adv.TxtRecord}, {TxtJSON: adv.TxtJSON}} {
		relayed.InstanceName, relayed.Port, relayed.Addrs = adv.InstanceName, adv.Port, "10.0.0.2"
		p, err := platformPeer(&relayed)
		if err != nil || p.Name != "Zoë's phone" || p.Fingerprint != testFP || !p.Compatible {
			t.Fatalf("relayed back as %+v, %v", p, err)
		}
	}
}

func TestParseItems(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`[{"path": "/a"}, {"text": "hi"}, {"text": "", "name": "empty.txt"}]`, true},
		{`[]`, false},
		{`{}`, false},
		{`[{"pth": "/a"}]`, false},
		{`[{"path": "/a", "text": "x"}]`, false},
		{`[{"path": "/a", "name": "b"}]`, false},
		{`[{}]`, false},
		{`[{"path": "/a"}] []`, false},
	} {
		if _, err := parseItems(tc.in); (err == nil) != tc.ok {
			t.Errorf("parseItems(%s): %v", tc.in, err)
		}
	}
}

// instanceName is the instance name core/app advertises a device by.
func instanceName(name, fp string) string {
	instance, _ := nearby.Advertisement(name, fp)
	return instance
}
