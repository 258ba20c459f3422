//go:build !js

// The native build, where Folding holds x/text's cases.Fold, is the one that
// can compare the page's folding with it.

package place

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// TestFoldMatchesCases holds appendFold, the page's folding, to
// x/text's cases.Fold, the native one: the same bytes for every code
// point, and for strings mixing the code points whose folding is not
// themselves with ASCII and combining marks. A page and a native peer
// must find the same names to be one.
func TestFoldMatchesCases(t *testing.T) {
	ref := cases.Fold()
	var interesting []rune
	var bad int
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue // not a code point UTF-8 can hold
		}
		s := string(r)
		want := ref.String(s)
		if got := string(appendFold(nil, []byte(s))); got != want {
			if bad++; bad <= 20 {
				t.Errorf("appendFold(%U) = %+q, cases.Fold gives %+q", r, got, want)
			}
		}
		if want != s || unicode.SimpleFold(r) != r {
			interesting = append(interesting, r)
		}
	}
	if bad > 20 {
		t.Errorf("and %d more code points", bad-20)
	}
	if len(interesting) < 2800 {
		t.Fatalf("only %d code points with a folding: the tables are not the ones expected", len(interesting))
	}
	// Strings: the folding is per code point, so what could go wrong in
	// a string is the walk itself (multi-byte boundaries, a full folding
	// beside another); combining marks and ASCII are mixed in as names
	// have them.
	extra := []rune{'a', 'Z', '.', ' ', '~', 0x300, 0x301, 0x308, 0x313, 0x342, 0x345, 0x307, 0xFFFD, 0x1F389, 0x65E5}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		for range 1 + rng.IntN(12) {
			if rng.IntN(3) == 0 {
				b.WriteRune(extra[rng.IntN(len(extra))])
			} else {
				b.WriteRune(interesting[rng.IntN(len(interesting))])
			}
		}
		s := b.String()
		if got, want := string(appendFold(nil, []byte(s))), ref.String(s); got != want {
			t.Fatalf("appendFold(%+q) = %+q, cases.Fold gives %+q", s, got, want)
		}
	}
	// Appending keeps what dst held.
	if got := string(appendFold([]byte("x/"), []byte("Straße"))); got != "x/strasse" {
		t.Errorf("appendFold onto x/ = %q", got)
	}
}

// TestKeyBothFolders holds Folding.Key equal whichever folder it holds,
// the native build's (x/text) or the page's (appendFold), for every
// code point and for names mixing them: the contract the page and a
// native peer share, with the normalization around the folding
// included.
func TestKeyBothFolders(t *testing.T) {
	native, page := NewFolding(), &Folding{fold: appendFold}
	check := func(s string) {
		t.Helper()
		if a, b := native.Key(s), page.Key(s); a != b {
			t.Fatalf("Key(%+q): native %+q, page %+q", s, a, b)
		}
	}
	var runes []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		check(string(r))
		check("A" + string(r) + "\u0301")
		if r < 0x3400 || 0xA000 <= r && r < 0xAC00 || 0xFB00 <= r && r < 0xFF00 || 0x10400 <= r && r < 0x1E950 {
			runes = append(runes, r)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		for range 1 + rng.IntN(10) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		check(b.String())
	}
	for _, s := range []string{"Straße", "STRASSE", "ﬁle", "FILE", "ᾼ", "ΑΙ", "İstanbul", "ıstanbul", "Ωmega", "ωmega", "\xff"} {
		check(s)
	}
}
