package place

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// refusedOn says where a name is refused: nowhere, on every platform,
// or only by a receiver running on Windows.
type refusedOn int

const (
	nowhere refusedOn = iota
	everywhere
	onWindows
)

// TestCheckPath is the one table of path rules; each platform's build
// runs it against its own platformName, so the Windows column is checked
// by the Windows build (GOOS=windows go test, or under Wine).
func TestCheckPath(t *testing.T) {
	cases := []struct {
		path string
		on   refusedOn
	}{
		// ordinary names
		{"a", nowhere}, {"a/b/c", nowhere}, {"naïve café.txt", nowhere}, {"with space/x y", nowhere},
		{".hidden", nowhere}, {"a.b.c", nowhere}, {"COM10", nowhere}, {"LPT", nowhere}, {"console.txt", nowhere},
		{"CONx", nowhere}, {"x.CON", nowhere}, {strings.Repeat("n", MaxNameBytes), nowhere},
		{"日本語/ファイル.txt", nowhere}, {"a..b", nowhere}, {"-dash", nowhere}, {"ends.with.dot.txt", nowhere},
		{" nbsp", nowhere}, {"emoji ✓ 🎉.png", nowhere}, {"Ωmega", nowhere}, {"ſtraße", nowhere},
		{"x~1", onWindows}, {"ferry-partial", nowhere}, {".ferry-partial2", nowhere}, {"a/.ferry-partial", nowhere},
		{"FEATURES~", nowhere}, {"fe~x", nowhere}, {"a/FERRY-~1", onWindows}, {"private", nowhere},
		// structure
		{"", everywhere}, {"/", everywhere}, {"/a", everywhere}, {"a/", everywhere}, {"a//b", everywhere},
		{".", everywhere}, {"..", everywhere}, {"../a", everywhere}, {"a/..", everywhere}, {"a/./b", everywhere},
		{"a\xffb", everywhere},
		// what Windows cannot hold, refused on every platform
		{`a\b`, everywhere}, {`C:\x`, everywhere}, {"C:", everywhere}, {"a:b", everywhere}, {"file.txt:stream", everywhere},
		{"a<b", everywhere}, {"a>b", everywhere}, {`a"b`, everywhere}, {"a|b", everywhere}, {"a?b", everywhere}, {"a*b", everywhere},
		{"CON", everywhere}, {"con", everywhere}, {"Con.txt", everywhere}, {"nul.tar.gz", everywhere}, {"COM1", everywhere},
		{"com9.x", everywhere}, {"LPT1", everywhere}, {"lpt9", everywhere}, {"AUX", everywhere}, {"PRN", everywhere},
		{"CONIN$", everywhere}, {"COM¹", everywhere}, {"d/aux.c", everywhere},
		{"a.", everywhere}, {"a ", everywhere}, {"dir./x", everywhere}, {"CON /x", everywhere}, {"a...", everywhere},
		{strings.Repeat("n", MaxNameBytes+1), everywhere}, {strings.Repeat("é", MaxNameBytes/2+1), everywhere},
		{strings.Repeat("d/", MaxPathBytes/2+1) + "x", everywhere},
		// controls, format and default-ignorable code points (issue 13)
		{"a\x00b", everywhere}, {"a\nb", everywhere}, {"a\x7f", everywhere}, {"a\tb", everywhere},
		{"a\u0085b", everywhere}, {"a\u009bb", everywhere}, // C1: NEL, CSI
		{"invoice\u202Efdp.exe", everywhere}, // right-to-left override: shows as invoiceexe.pdf
		{"a\u202Ab", everywhere}, {"a\u2066b\u2069", everywhere}, {"a\u200Eb", everywhere}, {"a\u061Cb", everywhere},
		{"a\u200Bb", everywhere}, {"a\u200Db", everywhere}, {"a\uFEFFb", everywhere}, {"a\u00ADb", everywhere},
		{"a\u034Fb", everywhere}, {"a\uFE0Fb", everywhere}, {"a\u3164b", everywhere}, {"a\U000E0041b", everywhere},
		{"a\u2028b", everywhere}, {"a\uFFFEb", everywhere}, {"a\uFDD0b", everywhere},
		// the partial folder, under folding, normalization, ignorables and short names
		{PartialDir, everywhere}, {PartialDir + "/x", everywhere}, {".FERRY-PARTIAL", everywhere},
		{".ferry\u200c-partial/x", everywhere},
		{".ferry-partıal", everywhere},                                     // dotless ı: NTFS upper-cases it to I
		{".ferry-part\u0130al", nowhere}, {".\uff46erry-partial", nowhere}, // İ and a fullwidth f are other letters everywhere
		{"FERRY-~1", everywhere}, {"ferry-~1/x", everywhere}, {"FE12AB~1", everywhere},
		{"FERRY-~12", nowhere}, // nine characters: never a short name
		{"fe3a1b~9", everywhere}, {"FERRY~10", everywhere},
		// 8.3 short-name shapes: only a Windows receiver refuses them
		{"PROGRA~1", onWindows}, {"REPORT~2.PDF", onWindows}, {"d/ab~1.txt", onWindows}, {"a~12", onWindows},
	}
	for _, c := range cases {
		want := c.on == everywhere || (c.on == onWindows && runtime.GOOS == "windows")
		err := CheckPath(c.path)
		if want && !errors.Is(err, ErrRefusedPath) {
			t.Errorf("%+q accepted on %s (%v)", c.path, runtime.GOOS, err)
		}
		if !want && err != nil {
			t.Errorf("%+q refused on %s: %v", c.path, runtime.GOOS, err)
		}
	}
}

func TestClashName(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		isDir bool
		want  string
	}{
		{"a.txt", 1, false, "a (1).txt"},
		{"a.txt", 2, false, "a (2).txt"},
		{"archive.tar.gz", 1, false, "archive.tar (1).gz"},
		{".bashrc", 1, false, ".bashrc (1)"},
		{"noext", 3, false, "noext (3)"},
		{"my.folder", 1, true, "my.folder (1)"},
	}
	for _, c := range cases {
		if got := ClashName(c.name, c.n, c.isDir); got != c.want {
			t.Errorf("ClashName(%q, %d, %v) = %q, want %q", c.name, c.n, c.isDir, got, c.want)
		}
	}
}
