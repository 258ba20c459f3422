//go:build !(linux || darwin || freebsd) && !js

package pick

import (
	"os"
	"path/filepath"
)

// readable opens path and closes it again: where faccessat is not at hand
// (readable_unix.go), opening is the check.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// readableIn opens the file name in the folder at parent by its whole
// path: without faccessat there is no cheaper question to ask relative to
// the folder.
func readableIn(_ *os.File, name, parent string) error {
	return readable(filepath.Join(parent, name))
}
