//go:build !unix && !windows

package place

// FreeSpace cannot be known here; the transfer then relies on the write
// errors, which are still reported as ErrNoSpace.
func FreeSpace(dir string) (free int64, ok bool) { return 0, false }
