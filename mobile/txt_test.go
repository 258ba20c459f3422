package mobile

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

const testFP = "K7QX-M2PA-9RTE-WD4C"

func TestAdvertisementRoundTrip(t *testing.T) {
	adv := newAdvertisement("Zoë's\tphone\u202e", testFP, 4711)
	if adv.ServiceType != "_ferry._tcp" || adv.Port != 4711 {
		t.Fatalf("advertisement %+v", adv)
	}
	if adv.InstanceName != "Zoë's phone (K7QX)" {
		t.Fatalf("instance %q", adv.InstanceName)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(adv.TxtJSON), &m); err != nil {
		t.Fatal(err)
	}
	if m["v"] != "1" || m["name"] != "Zoë's phone" || m["fp"] != testFP {
		t.Fatalf("txt json %v", m)
	}
	for _, read := range []func() (txtInfo, error){
		func() (txtInfo, error) { return txtFromRecord(adv.TxtRecord) },
		func() (txtInfo, error) { return txtFromJSON(adv.TxtJSON) },
	} {
		info, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if info != (txtInfo{version: 1, name: "Zoë's phone", fingerprint: testFP}) {
			t.Fatalf("read back %+v", info)
		}
	}
}

func TestTXTFromRecord(t *testing.T) {
	rec := func(strs ...string) []byte { return txtRecord(strs) }
	for _, tc := range []struct {
		name string
		in   []byte
		want txtInfo
		err  bool
	}{
		{"empty", nil, txtInfo{}, false},
		{"first key wins", rec("V=2", "v=1", "name=a", "NAME=b"), txtInfo{version: 2, name: "a"}, false},
		{"junk skipped", rec("", "=x", "novalue", "v=zero", "v=3"), txtInfo{}, false},
		{"bad fingerprint", rec("fp=K7QX-M2PA-9RTE-WD4C-EXTRA"), txtInfo{}, false},
		{"lowercase fingerprint", rec("fp=k7qxm2pa9rtewd4c"), txtInfo{fingerprint: testFP}, false},
		{"negative version", rec("v=-1"), txtInfo{}, false},
		{"length past end", []byte{5, 'v', '=', '1'}, txtInfo{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := txtFromRecord(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"  plain  ":                    "plain",
		"a\x1b[31mred":                 "a [31mred",
		"bidi\u202eevil":               "bidi evil",
		"many   \n\t spaces":           "many spaces",
		"bad utf8 \xff":                "bad utf8 \uFFFD",
		strings.Repeat("é", 40) + "xy": strings.Repeat("é", 31), // 62 bytes: the next é does not fit in 63
	} {
		if got := cleanName(in, 63); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
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

// FuzzTXTRecord: a TXT record relayed from the platform is peer input.
func FuzzTXTRecord(f *testing.F) {
	f.Add(txtRecord(txtStrings("Zoë's phone", testFP)))
	f.Add([]byte{3, 'v', '=', '1', 0, 200})
	f.Add([]byte("\x07name=\xff\xfe"))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := txtFromRecord(b)
		if err != nil {
			return
		}
		if !utf8.ValidString(info.name) || len(info.name) > maxNameBytes {
			t.Fatalf("name %q", info.name)
		}
		if info.fingerprint != "" && canonicalFingerprint(info.fingerprint) != info.fingerprint {
			t.Fatalf("fingerprint %q", info.fingerprint)
		}
	})
}
