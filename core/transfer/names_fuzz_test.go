package transfer

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FuzzNames drives the name checker with offers of a few paths, one per
// line (their parent folders are offered first, as a sender would), and
// checks what it accepts against a reference written independently of
// foldKey: no accepted path may hold a control, format or
// default-ignorable code point, none may be the partial folder or one of
// its short names once HFS+'s ignorable code points are dropped and
// case folding and normalization are repeated until nothing changes, and
// no two accepted paths of one offer may be one name under that same
// reference.
func FuzzNames(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		entries := namesOffer(string(b))
		err := validateEntries(entries)
		if err != nil {
			if !errors.Is(err, ErrRefusedPath) && !errors.Is(err, ErrProtocol) {
				t.Fatalf("error of unknown kind: %v", err)
			}
			return
		}
		keys := make(map[string]string, len(entries))
		for _, e := range entries {
			for _, r := range e.Path {
				if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
					t.Fatalf("%+q accepted with %U", e.Path, r)
				}
			}
			top := topLevel(e.Path)
			if refKey(top) == refKey(partialDir) || shortAlias(top) {
				t.Fatalf("%+q accepted: it names the partial folder", e.Path)
			}
			k := refKey(e.Path)
			if other, dup := keys[k]; dup {
				t.Fatalf("%+q and %+q accepted in one offer: one name under folding", other, e.Path)
			}
			keys[k] = e.Path
		}
	})
}

// namesOffer turns lines into entries: each line a file, unless a later
// line lies inside it, and every missing parent a folder before it.
func namesOffer(s string) []Entry {
	lines := strings.Split(s, "\n")
	if len(lines) > 16 {
		lines = lines[:16]
	}
	isDir := make(map[string]bool)
	for _, l := range lines {
		for p := l; ; {
			dir, _, ok := cutLast(p)
			if !ok {
				break
			}
			isDir[dir] = true
			p = dir
		}
	}
	var entries []Entry
	added := make(map[string]bool)
	var add func(p string)
	add = func(p string) {
		if added[p] {
			return
		}
		if dir, _, ok := cutLast(p); ok {
			add(dir)
		}
		added[p] = true
		kind := KindFile
		if isDir[p] {
			kind = KindDir
		}
		entries = append(entries, Entry{Path: p, Kind: kind})
	}
	for _, l := range lines {
		add(l)
	}
	return entries
}

// refKey is the fuzz target's own idea of when two paths are one name
// somewhere: HFS+'s ignorable code points dropped, then decomposition,
// each rune's uppercase and full case folding repeated until nothing
// changes.
func refKey(s string) string {
	s = strings.Map(func(r rune) rune {
		if (r >= 0x200c && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x206a && r <= 0x206f) || r == 0xfeff {
			return -1
		}
		return r
	}, s)
	for range 8 {
		next := norm.NFD.String(cases.Fold().String(norm.NFD.String(strings.Map(unicode.ToUpper, s))))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// shortAlias reports the 8.3 short names Windows and vfat give the
// partial folder: "FERRY-~n" and, after clashes, two characters, four
// hex digits and "~n"; never more than 8 characters.
func shortAlias(c string) bool {
	u := strings.ToUpper(c)
	if len(u) > 8 {
		return false
	}
	if rest, ok := strings.CutPrefix(u, "FERRY-~"); ok {
		return rest != "" && strings.Trim(rest, "0123456789") == ""
	}
	if len(u) >= 8 && strings.HasPrefix(u, "FE") && u[6] == '~' {
		return strings.Trim(u[2:6], "0123456789ABCDEF") == "" && strings.Trim(u[7:], "0123456789") == ""
	}
	return false
}
