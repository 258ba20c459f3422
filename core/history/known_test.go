package history

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/internal/jsonfile"
)

// TestKnownFileAsDecoded: an Add that finds the file it warmed or wrote
// (and splits it line by line) writes what an Add that decodes it would:
// the same bytes, at every count around the bounds, whether the store
// knew the file from Warm or from its own last write.
func TestKnownFileAsDecoded(t *testing.T) {
	for _, n := range []int{0, 1, 2, maxRecords - 1, maxRecords, maxRecords + 1} {
		var recs []Record
		for i := range n {
			recs = append(recs, clean(sample(i)))
		}
		file := encode(recs)
		for _, how := range []string{"warm", "own write"} {
			known := storeWith(t, file)
			if how == "warm" {
				known.Warm()
			} else {
				// Its own write: the file after it, written back as it
				// was, is the one it knows.
				if _, err := known.Add(sample(n)); err != nil {
					t.Fatal(err)
				}
				if err := jsonfile.WriteAtomic(known.Path(), file); err != nil {
					t.Fatal(err)
				}
				known.remember(file)
			}
			if _, ok := known.knownLines(file); !ok {
				t.Fatalf("%d records, %s: the store does not know the file", n, how)
			}
			fresh := storeWith(t, file)
			for k := range 3 {
				if _, err := known.Add(sample(n + 10 + k)); err != nil {
					t.Fatal(err)
				}
				if _, err := fresh.Add(sample(n + 10 + k)); err != nil {
					t.Fatal(err)
				}
				a, _ := os.ReadFile(known.Path())
				b, _ := os.ReadFile(fresh.Path())
				if !bytes.Equal(a, b) {
					t.Fatalf("%d records, %s, add %d: the known file's Add wrote\n%.300s\nthe decoding one\n%.300s", n, how, k, a, b)
				}
			}
		}
	}
	// Over the byte cap: the oldest go by their lines' lengths.
	big := sample(0)
	big.Paths = []string{"/" + strings.Repeat("p", maxPathBytes-1)}
	var recs []Record
	for range 300 {
		recs = append(recs, clean(big))
	}
	file := encode(recs)
	known, fresh := storeWith(t, file), storeWith(t, file)
	known.Warm()
	if _, ok := known.knownLines(file); !ok {
		t.Fatal("the store does not know the large file")
	}
	known.Add(big)
	fresh.Add(big)
	a, _ := os.ReadFile(known.Path())
	b, _ := os.ReadFile(fresh.Path())
	if !bytes.Equal(a, b) || len(a) > maxFileBytes {
		t.Fatalf("over the cap: %d bytes against %d (cap %d)", len(a), len(b), maxFileBytes)
	}
}

// TestKnownFileChanged: a file changed since the store knew it (another
// store's Add, a person's edit, damage) is decoded as before: nothing
// another writer added is lost, a valid file laid out otherwise is
// rewritten in encode's form, and a damaged one is still set aside.
func TestKnownFileChanged(t *testing.T) {
	file := encode([]Record{clean(sample(0)), clean(sample(1))})
	s := storeWith(t, file)
	s.Warm()
	other := Open(s.Path())
	if _, err := other.Add(sample(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(sample(3)); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.List()
	if err != nil || len(got) != 4 || got[1].Names[1] != "note-2.txt" {
		t.Fatalf("after another store's Add: %d records, %v", len(got), err)
	}

	// The same records, laid out by hand: valid, not known.
	spaced := bytes.ReplaceAll(file, []byte(`,"`), []byte(`, "`))
	s = storeWith(t, spaced)
	s.Warm()
	if _, ok := s.knownLines(spaced); ok {
		t.Fatal("a file not in encode's form is known")
	}
	if _, err := s.Add(sample(2)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.Path())
	if want := encode([]Record{clean(sample(0)), clean(sample(1)), clean(sample(2))}); !bytes.Equal(b, want) {
		t.Fatalf("a hand-laid file after Add:\n%s\nwant\n%s", b, want)
	}

	// Damaged after the store knew it: set aside, as without Warm.
	s = storeWith(t, file)
	s.Warm()
	if err := jsonfile.WriteAtomic(s.Path(), file[:len(file)-5]); err != nil {
		t.Fatal(err)
	}
	aside, err := s.Add(sample(2))
	if err != nil || aside == nil {
		t.Fatalf("damaged after Warm: aside %v, %v", aside, err)
	}
	if got, _, _ := s.List(); len(got) != 1 {
		t.Fatalf("damaged after Warm: %d records, want the new one alone", len(got))
	}
}

// storeWith is a store whose file holds b.
func storeWith(t *testing.T, b []byte) *Store {
	s := Open(filepath.Join(t.TempDir(), fileName))
	if err := jsonfile.WriteAtomic(s.Path(), b); err != nil {
		t.Fatal(err)
	}
	return s
}

// BenchmarkAdd: one Add to a history of n records, by a store that knows
// the file (warmed, or its own last write: a Node's) against a fresh
// store each time, which decodes and encodes every record (every Add
// before the store knew its file).
func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{1, 20, maxRecords} {
		var recs []Record
		for i := range n {
			recs = append(recs, clean(sample(i)))
		}
		file := encode(recs)
		for _, known := range []bool{true, false} {
			name := map[bool]string{true: "known", false: "decoded"}[known]
			b.Run(name+"-"+strconv.Itoa(n), func(b *testing.B) {
				s := Open(filepath.Join(b.TempDir(), fileName))
				if err := jsonfile.WriteAtomic(s.Path(), file); err != nil {
					b.Fatal(err)
				}
				s.Warm()
				b.SetBytes(int64(len(file)))
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if !known {
						s = Open(s.Path())
					}
					if _, err := s.Add(sample(n + i)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParse: reading a history of 500 records as encode wrote it,
// line by line (parse) against as a whole (parseWhole, any file's way).
func BenchmarkParse(b *testing.B) {
	var recs []Record
	for i := range maxRecords {
		recs = append(recs, clean(sample(i)))
	}
	file := encode(recs)
	for name, read := range map[string]func(string, []byte) ([]Record, error){"lines": parse, "whole": parseWhole} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				if got, err := read("bench.json", file); err != nil || len(got) != maxRecords {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}
