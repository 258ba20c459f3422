package place

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// namesSeeds are FuzzNames' seeds: lines of paths, from issue 13 item 4
// and issue 18 item 3. They are committed under testdata/fuzz/FuzzNames,
// where go test runs each through the target; TestSeedCorpus keeps the
// two in step.
var namesSeeds = map[string][]byte{
	"nfc-nfd":       []byte("caf\u00e9\ncafe\u0301"),
	"long-s":        []byte("\u017f.txt\ns.txt"),
	"sigma":         []byte("\u03c2\n\u03c3"),
	"dotless-i":     []byte("\u0131\nI"),
	"sharp-s":       []byte("stra\u00dfe\nSTRASSE"),
	"zwnj-partial":  []byte(".ferry\u200c-partial/x"),
	"rlo":           []byte("invoice\u202efdp.exe"),
	"short-partial": []byte("FERRY-~1/x\nFE12AB~1"),
	"case-folders":  []byte("a/b\nA/c"),
	"windows":       []byte("a<b\nCON.txt\nx.\nPROGRA~1"),
	"tree":          []byte("photos/2024/a.jpg\nphotos/b.jpg\nnotes.txt"),
}

// TestSeedCorpus fails when the committed corpus lacks a seed or holds
// another version of one. Files the table does not name (inputs a
// fuzzing run found) are left alone. To rewrite the seeds:
//
//	FERRY_WRITE_CORPUS=1 go test -run TestSeedCorpus ./core/place
func TestSeedCorpus(t *testing.T) {
	write := os.Getenv("FERRY_WRITE_CORPUS") == "1"
	dir := filepath.Join("testdata", "fuzz", "FuzzNames")
	for name, b := range namesSeeds {
		want := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
		path := filepath.Join(dir, name)
		if write {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("seed %s is missing (FERRY_WRITE_CORPUS=1 writes it): %v", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("seed %s is out of date (FERRY_WRITE_CORPUS=1 rewrites it):\n got: %q\nwant: %q", path, got, want)
		}
	}
}
