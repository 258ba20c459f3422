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
	// Each folder offered, with its key: an entry's key is its folder's,
	// a slash and its own name's (keyIn), so only the last name of each
	// path is folded, where folding the whole path cost a path of
	// accented folders a microsecond an entry.
	dirs := make(map[string]string)
	fold := place.NewFolding()
	var (
		h       maphash.Hash
		nameKey []byte
	)
	h.SetSeed(seed)
	for i, e := range entries {
		parent, name, ok := place.CutLast(e.Path)
		dirKey, offered := dirs[parent]
		// A folder offered before passed CheckPath: only the last name
		// is new.
		var err error
		if ok && offered {
			err = place.CheckChild(e.Path, name)
		} else {
			err = place.CheckPath(e.Path)
		}
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if ok && !offered {
			return fmt.Errorf("entry %d: %q comes before its folder %q: %w", i, e.Path, parent, ErrProtocol)
		}
		if !ok {
			name = e.Path
		}
		nameKey = fold.AppendKey(nameKey[:0], name)
		h.Reset()
		if ok {
			h.WriteString(dirKey)
			h.WriteByte('/')
		}
		h.Write(nameKey)
		if _, hit := seen[h.Sum64()]; hit {
			// j < 0: another key of the same hash.
			key := keyIn(dirKey, string(nameKey), ok)
			if j := slices.IndexFunc(entries[:i], func(o event.Entry) bool { return fold.Key(o.Path) == key }); j >= 0 {
				if entries[j].Path == e.Path {
					return fmt.Errorf("entry %d: %q offered twice: %w", i, e.Path, ErrRefusedPath)
				}
				return fmt.Errorf("entry %d: %q and %q are one name on case-insensitive or normalizing file systems: %w", i, entries[j].Path, e.Path, ErrRefusedPath)
			}
		}
		seen[h.Sum64()] = struct{}{}
		if e.Kind == event.KindDir {
			dirs[e.Path] = keyIn(dirKey, string(nameKey), ok)
		}
	}
	return nil
}

// keyIn is the key of a name whose key is nameKey in the folder whose
// key is dirKey (in a folder when inFolder): place.Folding's key of the
// whole path, since every step of it (decomposition, each rune's
// uppercase, case folding, decomposition again) leaves a slash alone and
// never carries across one (TestKeyByParts).
func keyIn(dirKey, nameKey string, inFolder bool) string {
	if !inFolder {
		return nameKey
	}
	return dirKey + "/" + nameKey
}
