package secure

import (
	"strings"
	"unicode"
)

// This file reads fingerprints back, once for every package: discovery
// reads them from TXT records, trust from what people type. Fingerprint
// (identity.go) writes them. DeviceMatches is the one rule by which a
// person names a device, in a list of trusted devices (core/trust) or of
// devices heard on the network (core/discovery).

// parseFingerprint reads a fingerprint, or the start of one, as people
// and TXT records write it: in any case, with dashes and white space
// anywhere, which it drops. It returns the characters upper-cased and
// without separators, and false when any other character occurs or
// nothing is left. It does not check the length: a prefix parses too.
func parseFingerprint(s string) (string, bool) {
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
// "K7QX-M2PA-9RTE-WD4C", when parseFingerprint reads a whole fingerprint
// from it, and "" otherwise.
func CanonicalFingerprint(s string) string {
	n, ok := parseFingerprint(s)
	if !ok || len(n) != fpLen {
		return ""
	}
	return n[0:4] + "-" + n[4:8] + "-" + n[8:12] + "-" + n[12:16]
}

// minPrefix is the shortest fingerprint prefix that names a device:
// shorter ones match too much by chance.
const minPrefix = 4

// DeviceMatches reports whether query names the device with this name
// and fingerprint: the name, compared case-insensitively, or the
// fingerprint in full or as a prefix of at least four characters, as
// parseFingerprint reads it (any case, dashes and spaces optional).
// White space around query does not count; an empty query names
// nothing.
func DeviceMatches(name, fingerprint, query string) bool {
	q := strings.TrimSpace(query)
	if q == "" {
		return false
	}
	if strings.EqualFold(name, q) {
		return true
	}
	prefix, ok := parseFingerprint(q)
	if !ok || len(prefix) < minPrefix {
		return false
	}
	own, ok := parseFingerprint(fingerprint)
	return ok && strings.HasPrefix(own, prefix)
}
