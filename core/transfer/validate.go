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
	// Each folder offered, with its key and a slash: an entry's key is
	// its folder's so, then its own name's, so only the last name of each
	// path is folded, where folding the whole path cost a path of
	// accented folders a microsecond an entry. The key of a whole path is
	// the same, since every step of it (decomposition, each rune's
	// uppercase, case folding, decomposition again) leaves a slash alone
	// and never carries across one (place's TestKeyByParts).
	dirs := make(map[string]string)
	fold := place.NewFolding()
	var (
		h       maphash.Hash
		nameKey []byte
	)
	h.SetSeed(seed)
	for i, e := range entries {
		parent, name, inFolder := place.CutLast(e.Path)
		prefix, offered := dirs[parent]
		// A folder offered before passed CheckPath: only the last name
		// is new.
		var err error
		if inFolder && offered {
			err = place.CheckChild(e.Path, name)
		} else {
			err = place.CheckPath(e.Path)
		}
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if inFolder && !offered {
			return fmt.Errorf("entry %d: %q comes before its folder %q: %w", i, e.Path, parent, ErrProtocol)
		}
		nameKey = fold.AppendKey(nameKey[:0], name)
		h.Reset()
		h.WriteString(prefix)
		h.Write(nameKey)
		sum := h.Sum64()
		if _, hit := seen[sum]; hit {
			// j < 0: another key of the same hash.
			key := prefix + string(nameKey)
			if j := slices.IndexFunc(entries[:i], func(o event.Entry) bool { return fold.Key(o.Path) == key }); j >= 0 {
				if entries[j].Path == e.Path {
					return fmt.Errorf("entry %d: %q offered twice: %w", i, e.Path, ErrRefusedPath)
				}
				return fmt.Errorf("entry %d: %q and %q are one name on case-insensitive or normalizing file systems: %w", i, entries[j].Path, e.Path, ErrRefusedPath)
			}
		}
		seen[sum] = struct{}{}
		if e.Kind == event.KindDir {
			dirs[e.Path] = prefix + string(nameKey) + "/"
		}
	}
	return nil
}
