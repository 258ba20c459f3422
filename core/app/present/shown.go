package present

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Shown makes a string that a peer chose (a device name, a path in an
// offer, an abort reason, a name found over mDNS or kept in the trust
// file) safe to show to a person: every control character (C0
// including ESC, CR, LF and tab, DEL, C1) and every format character
// (Unicode Cf: bidi overrides and isolates, zero-width characters) and
// line or paragraph separator is shown escaped, "\x1b" or "U+202E",
// never written, and invalid UTF-8 bytes are shown as "\xff". So a peer
// can neither forge a line, nor move a terminal's cursor, nor reorder
// or hide what a person reads. Longer than max printed characters
// (max > 0), the middle gives way to "…", keeping both ends (a path's
// folder and its file name). keepLines leaves newlines and tabs alone
// (a text snippet shown whole). Backslashes are left as they are: a
// name that spells "\x1b" reads the same as one holding ESC, but
// neither can do harm.
func Shown(s string, max int, keepLines bool) string {
	if max <= 0 && Printable(s, keepLines) {
		return s
	}
	// Escape first, then cap on what is printed, cutting only between
	// whole pieces, so that no escape sequence is cut in two.
	var pieces []string
	width := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var p string
		switch {
		case r == utf8.RuneError && n == 1:
			p = fmt.Sprintf(`\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			p = s[i : i+n]
		case r < 0x20 || r == 0x7f:
			p = fmt.Sprintf(`\x%02x`, r)
		case unsafeRune(r):
			p = fmt.Sprintf("U+%04X", r)
		default:
			p = s[i : i+n]
		}
		pieces = append(pieces, p)
		width += utf8.RuneCountInString(p)
		i += n
	}
	if max > 0 && width > max {
		return joinCut(pieces, max)
	}
	return strings.Join(pieces, "")
}

// joinCut joins pieces keeping at most max printed characters: the
// first and last pieces that fit around one "…".
func joinCut(pieces []string, max int) string {
	budget := max - 1 // the ellipsis
	head, tail := budget-budget/2, budget/2
	var b strings.Builder
	used, i := 0, 0
	for ; i < len(pieces); i++ {
		w := utf8.RuneCountInString(pieces[i])
		if used+w > head {
			break
		}
		b.WriteString(pieces[i])
		used += w
	}
	j, tw := len(pieces), 0
	for j > i {
		w := utf8.RuneCountInString(pieces[j-1])
		if tw+w > tail {
			break
		}
		tw += w
		j--
	}
	b.WriteString("…")
	for _, p := range pieces[j:] {
		b.WriteString(p)
	}
	return b.String()
}

// unsafeRune reports the runes above ASCII that a terminal interprets or
// that change how the text around them reads: C1 controls (U+009B is
// a one-byte CSI), format characters (bidi overrides U+202A–U+202E,
// isolates U+2066–U+2069, zero-width characters, the BOM), and the line
// and paragraph separators.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}

// Printable reports whether s needs no escaping: Shown, uncapped,
// would return it as it is.
func Printable(s string, keepLines bool) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return false
			}
		}
		if keepLines && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || r == 0x7f || unsafeRune(r) {
			return false
		}
	}
	return true
}
