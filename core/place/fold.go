package place

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// appendFold appends src's full Unicode case folding (the C and F
// mappings of the Unicode Character Database's CaseFolding, no Turkic
// T mappings) to dst, from the standard library's case tables and the
// short table below. It gives the bytes cases.Fold gives, for every
// code point and every string (TestFoldMatchesCases): only the page's
// wasm uses it (fold_js.go), and a page and a native peer must agree on
// which names are one. src is valid UTF-8 (foldKey's is): an invalid
// byte is folded as U+FFFD.
func appendFold(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		i += n
		if full, ok := fullFold(r); ok {
			dst = append(dst, full...)
			continue
		}
		dst = utf8.AppendRune(dst, simpleFold(r))
	}
	return dst
}

// simpleFold is r's simple case folding (CaseFolding's C and S
// mappings): the one member of r's case orbit (unicode.SimpleFold) that
// every member folds to, which is the lowercase of the orbit's
// uppercase ("ſ", "s" and "S" fold to "s"; "K", the Kelvin sign, to
// "k"; "ς" and "ϑ" to "σ" and "θ"). A code point whose orbit is itself
// ("ı", "İ") folds to itself.
//
// Cherokee is the exception, twice over. CaseFolding folds its
// lowercase letters (encoded after the uppercase ones were in use) to
// the uppercase; cases.Fold, the native side's reference, folds those
// to the uppercase as well but the uppercase ones to the lowercase, a
// swap rather than a folding. Key upper-cases every letter before it
// folds, so only the uppercase's folding reaches a key; the swap is
// kept anyway, so that appendFold and cases.Fold are equal on every
// code point, which a test can hold without exceptions.
func simpleFold(r rune) rune {
	if unicode.SimpleFold(r) == r {
		return r
	}
	if cherokee(r) {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// cherokee reports the Cherokee letters, both cases: U+13A0-U+13FD
// and U+AB70-U+ABBF.
func cherokee(r rune) bool {
	return 0x13A0 <= r && r <= 0x13FD || 0xAB70 <= r && r <= 0xABBF
}

// fullFold is r's full case folding where it is more than one code
// point (CaseFolding's F mappings), and false where the simple folding
// is the full one.
func fullFold(r rune) (string, bool) {
	if r < 0xDF || r > 0xFB17 {
		return "", false
	}
	// Greek letters with a ypogegrammeni or prosgegrammeni (U+1F80-
	// U+1FAF): lowercase and titlecase alike fold to the letter without
	// it followed by ι. Three blocks of 16 (alpha, eta, omega), each
	// eight lowercase then eight titlecase, over the letters at
	// U+1F00, U+1F20 and U+1F60.
	if 0x1F80 <= r && r <= 0x1FAF {
		i := r - 0x1F80
		base := [3]rune{0x1F00, 0x1F20, 0x1F60}[i/16] + i%8
		return string(base) + "\u03b9", true
	}
	i, ok := slices.BinarySearchFunc(fullFolds[:], r, func(f fullFoldOf, r rune) int { return int(f.r - r) })
	if !ok {
		return "", false
	}
	return fullFolds[i].to, true
}

type fullFoldOf struct {
	r  rune
	to string
}

// fullFolds are the F mappings outside U+1F80-U+1FAF, in code point
// order: letters whose uppercase is more than one letter (ß to SS, so it
// folds to "ss"), letters with a diacritic that has no precomposed
// lowercase form, Greek with ypogegrammeni or perispomeni, and the Latin
// and Armenian ligatures.
var fullFolds = [...]fullFoldOf{
	{0x00DF, "ss"},                 // ß
	{0x0130, "i\u0307"},            // İ
	{0x0149, "\u02bcn"},            // ŉ
	{0x01F0, "j\u030c"},            // ǰ
	{0x0390, "\u03b9\u0308\u0301"}, // ΐ
	{0x03B0, "\u03c5\u0308\u0301"}, // ΰ
	{0x0587, "\u0565\u0582"},       // և
	{0x1E96, "h\u0331"},            // ẖ
	{0x1E97, "t\u0308"},            // ẗ
	{0x1E98, "w\u030a"},            // ẘ
	{0x1E99, "y\u030a"},            // ẙ
	{0x1E9A, "a\u02be"},            // ẚ
	{0x1E9E, "ss"},                 // ẞ
	{0x1F50, "\u03c5\u0313"},       // ὐ
	{0x1F52, "\u03c5\u0313\u0300"}, // ὒ
	{0x1F54, "\u03c5\u0313\u0301"}, // ὔ
	{0x1F56, "\u03c5\u0313\u0342"}, // ὖ
	{0x1FB2, "\u1f70\u03b9"},       // ᾲ
	{0x1FB3, "\u03b1\u03b9"},       // ᾳ
	{0x1FB4, "\u03ac\u03b9"},       // ᾴ
	{0x1FB6, "\u03b1\u0342"},       // ᾶ
	{0x1FB7, "\u03b1\u0342\u03b9"}, // ᾷ
	{0x1FBC, "\u03b1\u03b9"},       // ᾼ
	{0x1FC2, "\u1f74\u03b9"},       // ῂ
	{0x1FC3, "\u03b7\u03b9"},       // ῃ
	{0x1FC4, "\u03ae\u03b9"},       // ῄ
	{0x1FC6, "\u03b7\u0342"},       // ῆ
	{0x1FC7, "\u03b7\u0342\u03b9"}, // ῇ
	{0x1FCC, "\u03b7\u03b9"},       // ῌ
	{0x1FD2, "\u03b9\u0308\u0300"}, // ῒ
	{0x1FD3, "\u03b9\u0308\u0301"}, // ΐ
	{0x1FD6, "\u03b9\u0342"},       // ῖ
	{0x1FD7, "\u03b9\u0308\u0342"}, // ῗ
	{0x1FE2, "\u03c5\u0308\u0300"}, // ῢ
	{0x1FE3, "\u03c5\u0308\u0301"}, // ΰ
	{0x1FE4, "\u03c1\u0313"},       // ῤ
	{0x1FE6, "\u03c5\u0342"},       // ῦ
	{0x1FE7, "\u03c5\u0308\u0342"}, // ῧ
	{0x1FF2, "\u1f7c\u03b9"},       // ῲ
	{0x1FF3, "\u03c9\u03b9"},       // ῳ
	{0x1FF4, "\u03ce\u03b9"},       // ῴ
	{0x1FF6, "\u03c9\u0342"},       // ῶ
	{0x1FF7, "\u03c9\u0342\u03b9"}, // ῷ
	{0x1FFC, "\u03c9\u03b9"},       // ῼ
	{0xFB00, "ff"},                 // ﬀ
	{0xFB01, "fi"},                 // ﬁ
	{0xFB02, "fl"},                 // ﬂ
	{0xFB03, "ffi"},                // ﬃ
	{0xFB04, "ffl"},                // ﬄ
	{0xFB05, "st"},                 // ﬅ
	{0xFB06, "st"},                 // ﬆ
	{0xFB13, "\u0574\u0576"},       // ﬓ
	{0xFB14, "\u0574\u0565"},       // ﬔ
	{0xFB15, "\u0574\u056b"},       // ﬕ
	{0xFB16, "\u057e\u0576"},       // ﬖ
	{0xFB17, "\u0574\u056d"},       // ﬗ
}
