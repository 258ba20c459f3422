package page

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ferry-project/ferry/core/errkind"
)

// The page's words for sizes, rates and durations (page.js), run
// under Node from the page's own file: whole bytes and the singular below
// 1000 ("337.83491602234795 bytes/s" and "1 bytes" were shown once), no
// "1000 kB", no "1 min 60 s".
func TestPageWords(t *testing.T) {
	page, err := filepath.Abs("page.js")
	if err != nil {
		t.Fatal(err)
	}
	sizes := []float64{0, 1, 2, 337.83491602234795, 999.4, 999.6, 1500, 9949, 9950, 999_499, 999_600, 1.23e9}
	durations := []float64{0, -1, 0.2, 59.2, 61, 119.6, 3599.5, 3725}
	in, _ := json.Marshal(map[string]any{"sizes": sizes, "durations": durations})
	script := `const w = require(process.argv[1]); const q = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify({sizes: q.sizes.map(w.bytes), durations: q.durations.map(w.seconds),
	counts: [w.count(1, "file", "files"), w.count(0, "file", "files"), w.count(2, "item", "items")]}));`
	var got struct{ Sizes, Durations, Counts []string }
	nodeJSON(t, "checking the page's words", &got, "-e", script, page, string(in))
	wantSizes := []string{"0 bytes", "1 byte", "2 bytes", "338 bytes", "999 bytes", "1.0 kB", "1.5 kB", "9.9 kB", "10 kB", "999 kB", "1.0 MB", "1.2 GB"}
	wantDurations := []string{"", "", "1 s", "1 min", "1 min 1 s", "2 min", "1 h", "1 h 2 min"}
	wantCounts := []string{"1 file", "0 files", "2 items"}
	for _, c := range []struct {
		what      string
		in        []float64
		got, want []string
	}{{"bytes", sizes, got.Sizes, wantSizes}, {"seconds", durations, got.Durations, wantDurations}, {"count", nil, got.Counts, wantCounts}} {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s: %d answers, want %d: %q", c.what, len(c.got), len(c.want), c.got)
		}
		for i := range c.want {
			if c.got[i] != c.want[i] {
				in := any(i)
				if c.in != nil {
					in = c.in[i]
				}
				t.Errorf("%s(%v) = %q, want %q", c.what, in, c.got[i], c.want[i])
			}
		}
	}
}

// TestPageAffordancesKnownKinds: the page's one table of its own, what it
// offers to do about an error (page.js's affordances), is keyed by kinds
// of core's taxonomy only; the words for a kind come from Go with the
// error event (gui/wasm), so the page keeps no table of them.
func TestPageAffordancesKnownKinds(t *testing.T) {
	src, err := os.ReadFile("page.js")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)const affordances = \{\n(.*?)\n\t\};`).FindSubmatch(src)
	if block == nil {
		t.Fatal("page.js has no affordances table")
	}
	known := map[string]bool{}
	for _, k := range errkind.All() {
		known[string(k)] = true
	}
	keys := regexp.MustCompile(`(?m)(?:^\s*|,\s*)([a-z_]+):`).FindAllSubmatch(block[1], -1)
	if len(keys) == 0 {
		t.Fatal("no kinds found in page.js's affordances")
	}
	for _, k := range keys {
		if !known[string(k[1])] {
			t.Errorf("page.js's affordances name %q, which is not a kind", k[1])
		}
	}
	if bytes.Contains(src, []byte("errorWords")) {
		t.Error("page.js words error kinds itself (errorWords)")
	}
}
