package place

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// partNames are names whose key is not themselves, or is made by
// decomposition and folding across several runes, and names that start
// or end with what could carry across a slash if anything did: combining
// marks, a mark that folding turns into a letter (U+0345), a Hangul
// syllable's jamo.
var partNames = []string{
	"a", "A", "Report.TXT", "caf\u00e9", "cafe\u0301", "CAF\u00c9", "\u0301x", "x\u0301", "\u0345", "\u0399\u0345",
	"\u017f.txt", "\u03c2", "\u03a3", "\u0131", "\u0130", "\u212a", "\u212b", "stra\u00dfe", "STRASSE",
	"\ufb01le", "\uff21", "\u2460", "\u1100\u1161", "\uac00", "Ferienfotos Z\u00fcrich 3", "\u00e9t\u00e9 2024",
}

// TestKeyByParts holds what ValidateEntries relies on when it folds only
// the last name of each path (core/transfer): the key of a path is its
// folder's key, a slash and its last name's key, whatever the names;
// and AppendKey appends exactly Key.
func TestKeyByParts(t *testing.T) {
	f := NewFolding()
	check := func(dir, name string) {
		t.Helper()
		whole, parts := f.Key(dir+"/"+name), f.Key(dir)+"/"+f.Key(name)
		if whole != parts {
			t.Errorf("Key(%+q) = %+q, but by parts %+q", dir+"/"+name, whole, parts)
		}
	}
	for _, dir := range partNames {
		for _, name := range partNames {
			check(dir, name)
			check(dir+"/"+name, dir)
		}
	}
	// Random names of the same runes, ASCII and slashes between them.
	var runes []rune
	for _, s := range partNames {
		runes = append(runes, []rune(s)...)
	}
	rng := rand.New(rand.NewPCG(34, 34))
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		return b.String()
	}
	for range 20000 {
		check(word(), word())
	}
	for _, s := range append(partNames, "", "plain/ascii/Path.JPG") {
		if got := string(f.AppendKey([]byte("x"), s)); got != "x"+f.Key(s) {
			t.Errorf("AppendKey(%+q) appended %+q, Key is %+q", s, got[1:], f.Key(s))
		}
	}
}

// TestCheckChildAgrees: for a path in a folder that passed CheckPath,
// CheckChild gives CheckPath's answer, word for word, for names good and
// bad on every platform.
func TestCheckChildAgrees(t *testing.T) {
	long := strings.Repeat("n", MaxNameBytes+1)
	deep := strings.Repeat("d", MaxNameBytes)
	parents := []string{"ok", "ok/caf\u00e9", strings.Repeat(deep+"/", (MaxPathBytes-300)/(MaxNameBytes+1))[:]}
	names := append([]string{
		"", ".", "..", "ends.", "ends ", "CON", "con.txt", "aux.c", "LPT1", "a:b", "a<b", "a\\b", "tab\there",
		"\x00", "\xff", "ok\xc3", long, "FERRY-~1", PartialDir, strings.ToUpper(PartialDir), "fine.txt",
		strings.Repeat("x", MaxNameBytes),
	}, partNames...)
	for _, parent := range parents {
		parent = strings.TrimSuffix(parent, "/")
		if err := CheckPath(parent); err != nil {
			t.Fatalf("the parent %q does not pass CheckPath: %v", parent, err)
		}
		for _, name := range names {
			p := parent + "/" + name
			whole, child := CheckPath(p), CheckChild(p, name)
			if (whole == nil) != (child == nil) || whole != nil && whole.Error() != child.Error() {
				t.Errorf("%q in %q: CheckPath says %v, CheckChild %v", name, parent, whole, child)
			}
		}
	}
	if utf8.ValidString("ok\xc3") {
		t.Fatal("the invalid name is valid")
	}
}
