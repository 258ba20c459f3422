package transfer

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
)

// ValidateEntries checks a whole manifest before anything is written:
// every path safe, every parent offered earlier as a folder, and no two
// entries the same path under place.Folding. The folding holds on every
// target, case-sensitive or not, so that an offer that works once works
// everywhere and no two entries can land on one file.
func ValidateEntries(entries []event.Entry) error {
	// A set of the keys' hashes, not of the keys: the largest offer has
	// 100,000 of them, and a key is a string of its own for every path
	// with a capital (a set of them held 5 MiB, the hashes hold 1). The
	// entry a key clashes with is looked for only when its hash is
	// already there; the seed is the process's own, so a sender cannot
	// aim at a collision, which only costs that look.
	seed := maphash.MakeSeed()
	seen := make(map[uint64]struct{}, len(entries))
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
		h := maphash.String(seed, key)
		if _, hit := seen[h]; hit {
			// j < 0: another key of the same hash.
			if j := slices.IndexFunc(entries[:i], func(o event.Entry) bool { return fold.Key(o.Path) == key }); j >= 0 {
				if entries[j].Path == e.Path {
					return fmt.Errorf("entry %d: %q offered twice: %w", i, e.Path, ErrRefusedPath)
				}
				return fmt.Errorf("entry %d: %q and %q are one name on case-insensitive or normalizing file systems: %w", i, entries[j].Path, e.Path, ErrRefusedPath)
			}
		}
		seen[h] = struct{}{}
		if e.Kind == event.KindDir {
			dirs[e.Path] = true
		}
	}
	return nil
}
