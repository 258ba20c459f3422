package secure

import (
	"strings"
	"unicode"
)

// This file reads fingerprints back, once for every package: discovery
// reads them from TXT records, trust from what people type. Fingerprint
// (identity.go) writes them.

// ParseFingerprint reads a fingerprint, or the start of one, as people
// and TXT records write it: in any case, with dashes and white space
// anywhere, which it drops. It returns the characters upper-cased and
// without separators, and false when any other character occurs or
// nothing is left. It does not check the length: a prefix parses too.
func ParseFingerprint(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '-' || unicode.IsSpace(r):
			continue
		case r >= 'a' && r <= 'z':
			r -= 'a' - 'A'
		}
		if r > unicode.MaxASCII || !strings.ContainsRune(fpAlphabet, r) {
			return "", false
		}
		b.WriteRune(r)
	}
	return b.String(), b.Len() > 0
}

// CanonicalFingerprint returns s in Fingerprint's form,
// "K7QX-M2PA-9RTE-WD4C", when ParseFingerprint reads a whole fingerprint
// from it, and "" otherwise.
func CanonicalFingerprint(s string) string {
	n, ok := ParseFingerprint(s)
	if !ok || len(n) != fpLen {
		return ""
	}
	return n[0:4] + "-" + n[4:8] + "-" + n[8:12] + "-" + n[12:16]
}
