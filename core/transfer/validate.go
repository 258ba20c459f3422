package transfer

import (
	"fmt"
	"slices"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
)

// validateEntries checks a whole manifest before anything is written:
// every path safe, every parent offered earlier as a folder, and no two
// entries the same path under place.Folding. The folding holds on every
// target, case-sensitive or not, so that an offer that works once works
// everywhere and no two entries can land on one file.
func validateEntries(entries []event.Entry) error {
	// A set of keys, not a map from key to entry: the largest offer has
	// 100,000 of them, and an index each would add a third. The entry a
	// key clashes with is looked for only when one does.
	seen := make(map[string]struct{}, len(entries))
	dirs := make(map[string]bool)
	fold := place.NewFolding()
	for i, e := range entries {
		if err := place.CheckPath(e.Path); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if parent, _, ok := place.CutLast(e.Path); ok && !dirs[parent] {
			return fmt.Errorf("entry %d: %q comes before its folder %q: %w", i, e.Path, parent, ErrProtocol)
		}
		key := fold.Key(e.Path)
		if _, dup := seen[key]; dup {
			j := slices.IndexFunc(entries[:i], func(o event.Entry) bool { return fold.Key(o.Path) == key })
			if entries[j].Path == e.Path {
				return fmt.Errorf("entry %d: %q offered twice: %w", i, e.Path, ErrRefusedPath)
			}
			return fmt.Errorf("entry %d: %q and %q are one name on case-insensitive or normalizing file systems: %w", i, entries[j].Path, e.Path, ErrRefusedPath)
		}
		seen[key] = struct{}{}
		if e.Kind == event.KindDir {
			dirs[e.Path] = true
		}
	}
	return nil
}
