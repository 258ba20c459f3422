package trust

import (
	"bytes"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the trust file parser. It must not
// panic; what it accepts must be well formed and survive a write and a
// second read unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version": 1, "devices": [{"name": "desk", "key": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "paired_at": "2025-05-01T09:30:00Z"}], "recent": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parse("fuzz.json", b)
		if err != nil {
			return
		}
		for _, list := range [][]Device{c.devices, c.recent} {
			seen := map[string]bool{}
			for _, d := range list {
				if len(d.Key) != keySize {
					t.Fatalf("accepted a %d-byte key", len(d.Key))
				}
				if err := checkName(d.Name); err != nil {
					t.Fatalf("accepted name %q: %v", d.Name, err)
				}
				if seen[string(d.Key)] {
					t.Fatal("accepted a duplicate key")
				}
				seen[string(d.Key)] = true
			}
		}
		again, err := parse("fuzz.json", encode(c))
		if err != nil {
			t.Fatalf("cannot read back what it wrote: %v", err)
		}
		if !bytes.Equal(encode(again), encode(c)) {
			t.Fatal("a write and a read changed the contents")
		}
	})
}
