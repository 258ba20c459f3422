package place

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// PartialDir is the hidden folder, inside the destination, where files
// are written until their hash checks out. No offered path may start
// with it, or with anything a file system could take for it.
const PartialDir = ".ferry-partial"

// Limits of a name that every receiver holds to, whatever its file
// system: the wire's limits too (core/transfer's offer carries no longer
// path).
const (
	MaxNameBytes = 255  // one path component
	MaxPathBytes = 4096 // a whole relative path
)

// CheckPath reports why p may not be written, or nil. Most rules hold on
// every platform, so that a receiver never accepts what a receiver on
// another OS, or the same OS writing onto a USB stick, would fail on or
// misread after the bytes arrived:
//
//   - relative and slash-separated; no empty, "." or ".." component;
//   - valid UTF-8 with no code point that is a control (C0, DEL, C1), a
//     format character (Cf: bidi overrides and isolates, zero-width
//     joiners, the byte-order mark...), default-ignorable (variation
//     selectors, Hangul fillers, tags...), a noncharacter, or a line or
//     paragraph separator: names that display as something else, or that
//     HFS+ and others silently drop (".ferry\u200c-partial" is
//     ".ferry-partial" there);
//   - none of the characters Windows cannot hold: \ / : * ? " < > |
//     (separators, drive letters, alternate streams, wildcards);
//   - no component ending in a dot or a space, and no Windows device name
//     (CON, PRN, AUX, NUL, COM0-9, LPT0-9, CONIN$, CONOUT$, with or
//     without an extension, in any case);
//   - at most MaxNameBytes per component (which is at most 255 UTF-16
//     units too, the NTFS, exFAT and vfat limit) and MaxPathBytes in all;
//   - a first component that is not the partial folder under case
//     folding and normalization (foldKey), nor one of its 8.3 short-name
//     aliases ("FERRY-~1", "FE12AB~1"), which vfat (Linux's driver as
//     much as Windows') and NTFS resolve to it.
//
// platformName adds the rules of the platform the receiver runs on (see
// paths_windows.go and paths_other.go); the sessions add the rules
// between entries (core/transfer's validateEntries: a folder before what
// it holds, no two paths one name under Folding).
func CheckPath(p string) error {
	if p == "" {
		return fmt.Errorf("empty path: %w", ErrRefusedPath)
	}
	if err := checkBytes(p, p); err != nil {
		return err
	}
	if p[0] == '/' {
		return fmt.Errorf("absolute path %q: %w", p, ErrRefusedPath)
	}
	first := true
	for c := range strings.SplitSeq(p, "/") {
		if err := checkNameIn(p, c, first); err != nil {
			return err
		}
		first = false
	}
	return nil
}

// CheckChild is CheckPath for p, the path of name in a folder whose own
// path passed CheckPath: it checks only what that check did not, with
// CheckPath's words. A manifest lists a folder before what it holds, so
// each of its paths is checked a name at a time (core/transfer's
// ValidateEntries), not its folders again for every file in them. A
// slash is never part of a longer UTF-8 sequence, so the name's bytes
// are the path's to check once its folder's passed.
func CheckChild(p, name string) error {
	if err := checkBytes(p, name); err != nil {
		return err
	}
	return checkNameIn(p, name, false)
}

// checkBytes refuses a path p over MaxPathBytes, or whose part s (p or
// its last name) is not UTF-8.
func checkBytes(p, s string) error {
	if len(p) > MaxPathBytes {
		return fmt.Errorf("path of %d bytes is over the limit of %d: %w", len(p), MaxPathBytes, ErrRefusedPath)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("path %q is not UTF-8: %w", p, ErrRefusedPath)
	}
	return nil
}

// checkNameIn checks the name c of path p against every platform's rules
// and this one's, and the first name against the partial folder's.
func checkNameIn(p, c string, first bool) error {
	if err := checkName(c); err != nil {
		return fmt.Errorf("path %q: %w", p, err)
	}
	if err := platformName(c); err != nil {
		return fmt.Errorf("path %q: %w", p, err)
	}
	if first && isPartialDir(c) {
		return fmt.Errorf("path %q: %q names the partial folder %q: %w", p, c, PartialDir, ErrRefusedPath)
	}
	return nil
}

// checkName checks one path component against the rules of every
// platform.
func checkName(c string) error {
	switch {
	case c == "":
		return fmt.Errorf("empty name: %w", ErrRefusedPath)
	case c == "." || c == "..":
		return fmt.Errorf("name %q: %w", c, ErrRefusedPath)
	case len(c) > MaxNameBytes:
		return fmt.Errorf("name of %d bytes is over the limit of %d: %w", len(c), MaxNameBytes, ErrRefusedPath)
	case strings.HasSuffix(c, ".") || strings.HasSuffix(c, " "):
		return fmt.Errorf("name %q ends in a dot or space: %w", c, ErrRefusedPath)
	case reservedName(c):
		return fmt.Errorf("name %q is a reserved device name: %w", c, ErrRefusedPath)
	}
	for _, r := range c {
		if why := badRune(r); why != "" {
			return fmt.Errorf("name %q contains %U, %s: %w", c, r, why, ErrRefusedPath)
		}
	}
	return nil
}

// asciiBad says why each ASCII character may not appear in a name, or "".
var asciiBad = func() (t [utf8.RuneSelf]string) {
	for r := range t {
		if r < 0x20 || r == 0x7f {
			t[r] = "a control character"
		}
	}
	for _, r := range `\/:*?"<>|` {
		t[r] = "a character Windows cannot hold in a name"
	}
	return t
}()

// badRune says why r may not appear in a name, or "".
func badRune(r rune) string {
	if r < utf8.RuneSelf {
		return asciiBad[r]
	}
	switch {
	case unicode.Is(unicode.Cc, r):
		return "a control character"
	case unicode.Is(unicode.Cf, r):
		return "an invisible format character"
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return "a default-ignorable character"
	case unicode.Is(unicode.Noncharacter_Code_Point, r):
		return "a noncharacter"
	case unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return "a line or paragraph separator"
	}
	return ""
}

// reservedName reports Windows device names, which open the device
// instead of a file there whatever the extension.
func reservedName(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	base = strings.TrimRight(base, " ")
	if ascii(base) {
		// Every offered path's every component comes here: an ASCII
		// name longer than the longest device name is none, and a
		// shorter one is upper-cased on the stack, where ToUpper would
		// allocate.
		if len(base) > len("CONOUT$") {
			return false
		}
		var up [len("CONOUT$")]byte
		for i := 0; i < len(base); i++ {
			up[i] = base[i]
			if 'a' <= up[i] && up[i] <= 'z' {
				up[i] -= 'a' - 'A'
			}
		}
		return deviceName(string(up[:len(base)]))
	}
	return deviceName(strings.ToUpper(base))
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// deviceName reports whether an upper-cased name without extension is
// a Windows device's.
func deviceName(base string) bool {
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) >= 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		switch base[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// partialKey is the partial folder's name under foldKey.
var partialKey = foldKey(PartialDir)

// isPartialDir reports a top-level name that a file system may take for
// the partial folder: the same under case folding and normalization, or
// an 8.3 short name Windows or Linux's vfat could have generated for it.
// Short names drop the leading dot and keep six characters then "~n"
// ("FERRY-~1"); after a few clashes Windows keeps two and adds four hex
// digits of a hash ("FE12AB~1"); so any 8-character-or-shorter name of
// the shape FE…~digits, in any case, is refused.
func isPartialDir(c string) bool {
	// Nothing but "." folds or normalizes to ".": the cheap test first.
	if c[0] == '.' && foldKey(c) == partialKey {
		return true
	}
	if len(c) > 8 || len(c) < 4 || !strings.EqualFold(c[:2], "fe") {
		return false
	}
	tilde := strings.IndexByte(c, '~')
	if tilde < 2 || tilde == len(c)-1 {
		return false
	}
	for _, r := range c[tilde+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isShortName reports a name of the 8.3 short-name shape that Windows
// generates for long names: one to six characters, "~", digits, and an
// optional extension of one to three ("PROGRA~1", "REPORT~2.PDF").
func isShortName(c string) bool {
	base, ext, hasExt := strings.Cut(c, ".")
	if hasExt && (len(ext) < 1 || len(ext) > 3 || strings.Contains(ext, ".")) {
		return false
	}
	tilde := strings.LastIndexByte(base, '~')
	if tilde < 1 || tilde > 6 || tilde == len(base)-1 || len(base) > 8 {
		return false
	}
	for _, r := range base[tilde+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// foldKey maps a name or path to the key under which the file systems a
// receiver may write to (NTFS, APFS, HFS+, exFAT, vfat, ext4 and tmpfs
// with casefold, Android's casefolded storage) consider two names the
// same: canonical decomposition (NFC and NFD spellings of "é" are one
// name on APFS and ext4 casefold), then each rune's simple uppercase
// (NTFS's upcase table: "ı" is "I" there), then full Unicode case
// folding ("ſ" is "s", "ς" is "σ", "ß" is "ss"), and decomposition
// again (NFD and NFC give the same answer to "are these one name?";
// NFD is cheaper here). Being coarser than any one of them, it refuses
// a few pairs that a given file system would keep apart ("ß" and "ss" on
// NTFS); that is the price of one rule for every target. strings.ToLower is not case folding: it
// keeps "ſ" and "s", "ς" and "σ" apart.
func foldKey(s string) string {
	f := NewFolding()
	return f.Key(s)
}

// Folding computes foldKey in buffers it reuses: an offer of 100,000
// names would otherwise allocate kilobytes for each. It is not safe for
// concurrent use (nor is the case folder it holds).
type Folding struct {
	// fold appends src's full case folding to dst: x/text's cases.Fold
	// natively, the standard library's tables in the page's wasm
	// (fold_js.go, fold.go), which give the same bytes for every input.
	fold func(dst, src []byte) []byte
	a, b []byte
}

// NewFolding returns a Folding for one offer's names.
func NewFolding() *Folding { return &Folding{fold: newCaseFolder()} }

// Key is s's key under folding: two names of one key are one name on
// some file system a receiver may write to (see foldKey).
func (f *Folding) Key(s string) string {
	if isASCII(s) { // the common case, and one that allocates only for capitals
		return strings.ToLower(s)
	}
	return string(f.AppendKey(nil, s))
}

// AppendKey appends s's key (Key) to dst, allocating nothing once dst
// has room: for a caller that only hashes keys.
func (f *Folding) AppendKey(dst []byte, s string) []byte {
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		return dst
	}
	f.a = norm.NFD.AppendString(f.a[:0], s)
	f.b = f.b[:0]
	for _, r := range string(f.a) {
		f.b = utf8.AppendRune(f.b, unicode.ToUpper(r))
	}
	f.a = f.fold(f.a[:0], f.b)
	// Folding can reorder or change combining classes (U+0345 folds to
	// ι), so the result is normalized again: to NFD, which gives the
	// same classes as NFC but leaves the usual already-decomposed result
	// alone, where NFC would recompose every accented letter through a
	// kilobyte of scratch space each time.
	return norm.NFD.Append(dst, f.a...)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// CutLast splits "a/b/c" into "a/b" and "c"; ok is false for a top-level
// name.
func CutLast(p string) (dir, name string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p, false
	}
	return p[:i], p[i+1:], true
}

// TopLevel returns the first component of p.
func TopLevel(p string) string {
	top, _, _ := strings.Cut(p, "/")
	return top
}

// ClashName returns the n-th alternative to a taken name: "a.txt" gives
// "a (1).txt", a folder or a name without extension "a (1)". A leading dot
// does not start an extension (".bashrc (1)").
func ClashName(name string, n int, isDir bool) string {
	stem, ext := name, ""
	if !isDir {
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			stem, ext = name[:i], name[i:]
		}
	}
	return fmt.Sprintf("%s (%d)%s", stem, n, ext)
}
