package history

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the history file parser. It must
// not panic; what it accepts must already be bounded (clean changes
// nothing) and must survive a write and a second read unchanged.
func FuzzParse(f *testing.F) {
	f.Add(encode([]Record{clean(sample(1)), clean(sample(2))}))
	f.Add([]byte(`{"version":1,"records":[]}`))
	f.Add([]byte(`{"version":2,"records":[]}`))
	f.Add([]byte(`{"version":1,"records":[{"at":"2026-12-03T10:00:00Z","direction":"sent","peer":{"name":"a","auth":"code"},"outcome":"failed","error_kind":"verify","error":"x","duration_ms":5,"names":["a"],"paths":["/a"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := parse("fuzz.json", b)
		if err != nil {
			return
		}
		for i, r := range recs {
			if c := clean(r); !reflect.DeepEqual(c, r) {
				t.Fatalf("record %d accepted unbounded:\n%+v\nclean:\n%+v", i, r, c)
			}
		}
		again, err := parse("fuzz.json", encode(recs))
		if err != nil {
			t.Fatalf("cannot read back what it wrote: %v", err)
		}
		if !bytes.Equal(encode(again), encode(recs)) {
			t.Fatal("a write and a read changed the contents")
		}
	})
}
