package transfer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
)

// validateWhole is ValidateEntries as it was before it checked and
// folded a name at a time: every path checked whole, every key folded
// whole, a plain set of keys.
func validateWhole(entries []event.Entry) error {
	fold := place.NewFolding()
	seen := map[string]int{}
	dirs := map[string]bool{}
	for i, e := range entries {
		if err := place.CheckPath(e.Path); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if parent, _, ok := place.CutLast(e.Path); ok && !dirs[parent] {
			return fmt.Errorf("entry %d: %q comes before its folder %q: %w", i, e.Path, parent, ErrProtocol)
		}
		key := fold.Key(e.Path)
		if j, ok := seen[key]; ok {
			if entries[j].Path == e.Path {
				return fmt.Errorf("entry %d: %q offered twice: %w", i, e.Path, ErrRefusedPath)
			}
			return fmt.Errorf("entry %d: %q and %q are one name on case-insensitive or normalizing file systems: %w", i, entries[j].Path, e.Path, ErrRefusedPath)
		}
		seen[key] = i
		if e.Kind == event.KindDir {
			dirs[e.Path] = true
		}
	}
	return nil
}

// TestValidateByNames: ValidateEntries, which checks and folds only the
// last name of a path whose folder it has seen, answers as the whole-path
// rule does, word for word, on random manifests of names that clash under
// folding, names no platform takes, and folders offered late or never.
func TestValidateByNames(t *testing.T) {
	names := []string{"a", "A", "caf\u00e9", "cafe\u0301", "CAF\u00c9", "\u0345", "\u0399\u0345", "\u03c2", "\u03a3",
		"stra\u00dfe", "STRASSE", "\u212a", "k", "\ufb01le", "FILE", "Z\u00fcrich", "zu\u0308rich", "CON", "x.", "b"}
	rng := rand.New(rand.NewPCG(3, 4))
	var refused int
	for range 5000 {
		var entries []event.Entry
		var dirs []string
		for range 1 + rng.IntN(8) {
			p := names[rng.IntN(len(names))]
			if len(dirs) > 0 && rng.IntN(4) > 0 {
				p = dirs[rng.IntN(len(dirs))] + "/" + p
			}
			kind := event.KindFile
			if rng.IntN(2) == 0 {
				kind = event.KindDir
				dirs = append(dirs, p)
			}
			if rng.IntN(20) == 0 {
				p = "never/" + p // a folder never offered
			}
			entries = append(entries, event.Entry{Path: p, Kind: kind})
		}
		got, want := ValidateEntries(entries), validateWhole(entries)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v:\nby names: %v\nwhole:    %v", entries, got, want)
		}
		if want != nil {
			refused++
		}
	}
	if refused < 1000 || refused > 4900 {
		t.Fatalf("%d of 5000 manifests refused: the test does not try both answers enough", refused)
	}
}
