package discovery

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTXTFormsRoundTrip: what a receiver advertises, in either form a
// platform takes, reads back as the strings TXTStrings made.
func TestTXTFormsRoundTrip(t *testing.T) {
	want := TXTStrings("Zoë's\tphone\u202e", testFP)
	var m map[string]string
	if err := json.Unmarshal([]byte(TXTJSON(want)), &m); err != nil {
		t.Fatal(err)
	}
	if m["v"] != "2" || m["name"] != "Zoë's phone" || m["fp"] != testFP || len(m) != 3 {
		t.Fatalf("txt json %v", m)
	}
	fromRecord, err := TXTFromRecord(TXTRecord(want))
	if err != nil || !slices.Equal(fromRecord, want) {
		t.Fatalf("txt record read back as %q, %v; want %q", fromRecord, err, want)
	}
	fromJSON, err := TXTFromJSON(TXTJSON(want))
	if err != nil || !slices.Equal(slices.Sorted(slices.Values(fromJSON)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("txt json read back as %q, %v; want %q in any order", fromJSON, err, want)
	}
}

func TestTXTFromRecord(t *testing.T) {
	rec := func(strs ...string) []byte { return TXTRecord(strs) }
	long := strings.Repeat("x", 255)
	for _, tc := range []struct {
		name string
		in   []byte
		want []string
		err  bool
	}{
		{"empty", nil, nil, false},
		{"order kept", rec("V=2", "v=1", "name=a"), []string{"V=2", "v=1", "name=a"}, false},
		{"junk kept for discovery to skip", rec("", "=x", "novalue", "\xff"), []string{"", "=x", "novalue", "\xff"}, false},
		{"longest string", rec(long, "v=1"), []string{long, "v=1"}, false},
		{"length past end", []byte{5, 'v', '=', '1'}, nil, true},
		{"length past end after a good string", []byte{3, 'v', '=', '1', 1}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TXTFromRecord(tc.in)
			if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestTXTFromJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
		err  bool
	}{
		{"empty", "", nil, false},
		{"null", "null", nil, false},
		{"empty object", " {} ", nil, false},
		{"order kept", `{"v":"1","name":"a","fp":"b"}`, []string{"v=1", "name=a", "fp=b"}, false},
		{"repeated keys kept in order", `{"V":"2","v":"1","v":"3"}`, []string{"V=2", "v=1", "v=3"}, false},
		{"null value is a bare key", `{"flag":null,"v":"1"}`, []string{"flag", "v=1"}, false},
		{"empty value", `{"name":""}`, []string{"name="}, false},
		{"keys no TXT string can carry", `{"":"x","a=b":"c","v":"1"}`, []string{"v=1"}, false},
		{"escapes", `{"name":"Zo\u00eb\n"}`, []string{"name=Zoë\n"}, false},
		{"number value", `{"v":1}`, nil, true},
		{"object value", `{"v":{}}`, nil, true},
		{"array", `["v=1"]`, nil, true},
		{"string", `"v=1"`, nil, true},
		{"truncated", `{"v":"1"`, nil, true},
		{"more after", `{"v":"1"} {}`, nil, true},
		{"not json", `v=1`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TXTFromJSON(tc.in)
			if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// FuzzTXTRecord: a TXT record relayed from the platform is peer input.
// What reads must encode back to the same bytes.
func FuzzTXTRecord(f *testing.F) {
	txt := TXTStrings("Zoë's phone", testFP)
	f.Add(TXTRecord(txt))
	f.Add([]byte{3, 'v', '=', '1', 0, 200})
	f.Add([]byte("\x07name=\xff\xfe"))
	f.Fuzz(func(t *testing.T, b []byte) {
		kv, err := TXTFromRecord(b)
		if err != nil {
			return
		}
		if back := TXTRecord(kv); !bytes.Equal(back, b) {
			t.Fatalf("%q read as %q, which encodes as %q", b, kv, back)
		}
	})
}

// FuzzTXTJSON: TXT as JSON from the app relays peer input too. What reads
// is valid JSON, and every string is a usable key, with or without a
// value.
func FuzzTXTJSON(f *testing.F) {
	f.Add(TXTJSON(TXTStrings("Zoë's phone", testFP)))
	f.Add(`{"v":"1","V":null,"":"x","a=b":"c"}`)
	f.Add(`{"v":"1"} x`)
	f.Fuzz(func(t *testing.T, s string) {
		kv, err := TXTFromJSON(s)
		if err != nil {
			return
		}
		if s != "" && !json.Valid([]byte(s)) {
			t.Fatalf("%q is not JSON, read as %q", s, kv)
		}
		for _, x := range kv {
			if k, _, _ := strings.Cut(x, "="); k == "" {
				t.Fatalf("%q read as %q, holding an empty key", s, kv)
			}
		}
	})
}
