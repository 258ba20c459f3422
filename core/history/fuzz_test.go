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
	f.Add([]byte("{\"version\":1,\"records\":[]}\n"))
	two := encode([]Record{clean(sample(1)), clean(sample(2))})
	f.Add(bytes.Replace(two, []byte("},\n{"), []byte("}\n,{"), 1))               // a record's line holds two
	f.Add(bytes.Replace(two, []byte("},\n{"), []byte("} ,\n{"), 1))              // a space after a record
	f.Add(bytes.Replace(two, []byte(`"texts":0`), []byte(`"texts":0,"x":1`), 1)) // an unknown field
	f.Add(bytes.Replace(two, []byte("},\n{"), []byte("},\n{},\n{"), 1))          // an empty record
	f.Add([]byte(`{"version":2,"records":[]}`))
	f.Add([]byte(`{"version":1,"records":[{"at":"2026-12-03T10:00:00Z","direction":"sent","peer":{"name":"a","auth":"code"},"outcome":"failed","error_kind":"verify","error":"x","duration_ms":5,"names":["a"],"paths":["/a"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := parse("fuzz.json", b)
		// The line-by-line reading is a shortcut: it accepts nothing
		// the whole file's does not, as the same records.
		whole, werr := parseWhole("fuzz.json", b)
		if lines, ok := parseLines(b); ok && (werr != nil || !reflect.DeepEqual(lines, whole)) {
			t.Fatalf("read line by line as %+v, as a whole as %+v, %v", lines, whole, werr)
		}
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(recs, whole) {
			t.Fatalf("parse: %+v, %v; as a whole: %+v, %v", recs, err, whole, werr)
		}
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
