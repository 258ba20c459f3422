//go:build windows

package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// ReplaceFile renames from over to with MoveFileEx and
// MOVEFILE_WRITE_THROUGH, which returns only when the move is on disk.
// That is Windows' way to make a rename durable: a folder opened the way
// os.Open opens one cannot be flushed (FlushFileBuffers answers "Access
// is denied"), so the Unix folder sync has no counterpart here. The
// caller has synced from's contents.
func ReplaceFile(from, to string) error {
	f, err := windows.UTF16PtrFromString(fixLongPath(from))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	t, err := windows.UTF16PtrFromString(fixLongPath(to))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	if err := windows.MoveFileEx(f, t, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return fmt.Errorf("replacing %s: %w", to, &os.LinkError{Op: "rename", Old: from, New: to, Err: err})
	}
	return nil
}

// fixLongPath gives an absolute path of MAX_PATH or more the \\?\ prefix
// that lets the wide-character file functions take it whole; os does the
// same for its own calls, but MoveFileEx here is called directly.
func fixLongPath(path string) string {
	const maxDirPath = 248 // MAX_PATH less room for an 8.3 file name, as CreateDirectory counts
	if len(path) < maxDirPath || !filepath.IsAbs(path) || strings.HasPrefix(path, `\\?\`) {
		return path
	}
	path = filepath.Clean(path)
	if rest, ok := strings.CutPrefix(path, `\\`); ok {
		return `\\?\UNC\` + rest
	}
	return `\\?\` + path
}
