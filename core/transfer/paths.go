package transfer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// partialDir is the hidden folder, inside the destination, where files
// are written until their hash checks out. No offered path may start
// with it.
const partialDir = ".ferry-partial"

// checkPath reports why p may not be written, or nil. The rules are the
// same on every platform, so a transfer that works between two Linux
// machines also works towards Windows or macOS:
//
//   - relative and slash-separated; no empty, "." or ".." component;
//   - valid UTF-8, no control characters, no backslash or colon (drive
//     letters, alternate streams and Windows separators);
//   - no component ending in a dot or a space, and no Windows device name
//     (CON, PRN, AUX, NUL, COM0-9, LPT0-9, CONIN$, CONOUT$, with or
//     without an extension, in any case);
//   - at most MaxNameBytes per component and MaxPathBytes in all;
//   - not inside the partial folder.
func checkPath(p string) error {
	if p == "" {
		return fmt.Errorf("empty path: %w", ErrRefusedPath)
	}
	if len(p) > MaxPathBytes {
		return fmt.Errorf("path of %d bytes is over the limit of %d: %w", len(p), MaxPathBytes, ErrRefusedPath)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("path %q is not UTF-8: %w", p, ErrRefusedPath)
	}
	if p[0] == '/' {
		return fmt.Errorf("absolute path %q: %w", p, ErrRefusedPath)
	}
	first := true
	for c := range strings.SplitSeq(p, "/") {
		if err := checkName(c); err != nil {
			return fmt.Errorf("path %q: %w", p, err)
		}
		if first && strings.EqualFold(c, partialDir) {
			return fmt.Errorf("path %q: %q is reserved for partial files: %w", p, partialDir, ErrRefusedPath)
		}
		first = false
	}
	return nil
}

// checkName checks one path component.
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
		if r < 0x20 || r == 0x7f || r == '\\' || r == ':' {
			return fmt.Errorf("name %q contains %q: %w", c, r, ErrRefusedPath)
		}
	}
	return nil
}

// reservedName reports Windows device names, which open the device
// instead of a file there whatever the extension.
func reservedName(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
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

// validateEntries checks a whole manifest before anything is written:
// every path safe, every parent offered earlier as a folder, no two
// entries the same path, and no two differing only by case. The case rule
// holds on every target, case-sensitive or not, so that an offer that
// works once works everywhere. (Unicode normalization is not folded: NFC
// and NFD spellings of a name count as different.)
func validateEntries(entries []Entry) error {
	seen := make(map[string]int, len(entries))
	dirs := make(map[string]bool)
	for i, e := range entries {
		if err := checkPath(e.Path); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if parent, _, ok := cutLast(e.Path); ok && !dirs[parent] {
			return fmt.Errorf("entry %d: %q comes before its folder %q: %w", i, e.Path, parent, ErrProtocol)
		}
		key := strings.ToLower(e.Path)
		if j, dup := seen[key]; dup {
			if entries[j].Path == e.Path {
				return fmt.Errorf("entry %d: %q offered twice: %w", i, e.Path, ErrRefusedPath)
			}
			return fmt.Errorf("entry %d: %q and %q differ only by case: %w", i, entries[j].Path, e.Path, ErrRefusedPath)
		}
		seen[key] = i
		if e.Kind == KindDir {
			dirs[e.Path] = true
		}
	}
	return nil
}

// cutLast splits "a/b/c" into "a/b" and "c"; ok is false for a top-level
// name.
func cutLast(p string) (dir, name string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p, false
	}
	return p[:i], p[i+1:], true
}

// topLevel returns the first component of p.
func topLevel(p string) string {
	top, _, _ := strings.Cut(p, "/")
	return top
}

// clashName returns the n-th alternative to a taken name: "a.txt" gives
// "a (1).txt", a folder or a name without extension "a (1)". A leading dot
// does not start an extension (".bashrc (1)").
func clashName(name string, n int, isDir bool) string {
	stem, ext := name, ""
	if !isDir {
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			stem, ext = name[:i], name[i:]
		}
	}
	return fmt.Sprintf("%s (%d)%s", stem, n, ext)
}
