package place

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FuzzNames drives the name checks with offers of a few paths, one per
// line (their parent folders are offered first, as a sender would), as
// core/transfer's validateEntries makes them (CheckPath on each, no two
// one key under Folding), and checks what they accept against a
// reference written independently of foldKey: no accepted path may hold a control, format or
// default-ignorable code point, none may be the partial folder or one of
// its short names once HFS+'s ignorable code points are dropped and
// case folding and normalization are repeated until nothing changes, and
// no two accepted paths of one offer may be one name under that same
// reference.
func FuzzNames(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		paths := namesOffer(string(b))
		err := checkNames(paths)
		if err != nil {
			if !errors.Is(err, ErrRefusedPath) {
				t.Fatalf("error of unknown kind: %v", err)
			}
			return
		}
		keys := make(map[string]string, len(paths))
		for _, p := range paths {
			for _, r := range p {
				if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
					t.Fatalf("%+q accepted with %U", p, r)
				}
			}
			top := TopLevel(p)
			if refKey(top) == refKey(PartialDir) || shortAlias(top) {
				t.Fatalf("%+q accepted: it names the partial folder", p)
			}
			k := refKey(p)
			if other, dup := keys[k]; dup {
				t.Fatalf("%+q and %+q accepted in one offer: one name under folding", other, p)
			}
			keys[k] = p
		}
	})
}

// namesOffer turns lines into an offer's paths: every missing parent
// before what it holds.
func namesOffer(s string) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > 16 {
		lines = lines[:16]
	}
	var paths []string
	added := make(map[string]bool)
	var add func(p string)
	add = func(p string) {
		if added[p] {
			return
		}
		if dir, _, ok := CutLast(p); ok {
			add(dir)
		}
		added[p] = true
		paths = append(paths, p)
	}
	for _, l := range lines {
		add(l)
	}
	return paths
}

// checkNames checks an offer's paths as core/transfer's validateEntries
// does, but for the order of folders, which namesOffer always keeps.
func checkNames(paths []string) error {
	seen := make(map[string]string, len(paths))
	fold := NewFolding()
	for _, p := range paths {
		if err := CheckPath(p); err != nil {
			return err
		}
		k := fold.Key(p)
		if other, dup := seen[k]; dup {
			return fmt.Errorf("%q and %q are one name: %w", other, p, ErrRefusedPath)
		}
		seen[k] = p
	}
	return nil
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
