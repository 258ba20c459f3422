//go:build windows

package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/windows"
)

// ReplaceFile renames from over to with MoveFileEx and
// MOVEFILE_WRITE_THROUGH, which returns only when the move is on disk.
// That is Windows' way to make a rename durable: a folder opened the way
// os.Open opens one cannot be flushed (FlushFileBuffers answers "Access
// is denied"), so the Unix folder sync has no counterpart here. The
// caller has synced from's contents.
//
// A reader holding the old file open delays the move (Windows refuses to
// replace an open file that was not opened for sharing deletes): it is
// retried for up to two seconds.
func ReplaceFile(from, to string) error {
	f, err := windows.UTF16PtrFromString(fixLongPath(from))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	t, err := windows.UTF16PtrFromString(fixLongPath(to))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	// A reader that has the old file open (Go opens files without
	// FILE_SHARE_DELETE) makes the move fail until it closes it; readers
	// hold it for a moment only, so retry for a while, as cmd/go's
	// robustio does on Windows.
	deadline := time.Now().Add(replaceRetry)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		err = windows.MoveFileEx(f, t, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
		if err == nil {
			return nil
		}
		if !errors.Is(err, windows.ERROR_ACCESS_DENIED) && !errors.Is(err, windows.ERROR_SHARING_VIOLATION) || time.Now().After(deadline) {
			return fmt.Errorf("replacing %s: %w", to, &os.LinkError{Op: "rename", Old: from, New: to, Err: err})
		}
		time.Sleep(delay)
	}
}

// replaceRetry is how long ReplaceFile waits for readers of the old file.
const replaceRetry = 2 * time.Second

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
