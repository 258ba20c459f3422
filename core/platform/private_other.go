//go:build !unix && !windows

package platform

import (
	"errors"
	"fmt"
	"os"
)

// errNoPrivate: where Ferry's core runs without an OS of its own (a
// browser's WebAssembly), no file can be shown to be private, so no
// secret is kept in one: such a front end keeps its identity in memory
// (secure.NewIdentity) or in its own store.
var errNoPrivate = errors.New("this platform cannot keep a file private")

// CheckPrivate cannot tell here: it refuses every file.
func CheckPrivate(f *os.File, path string) error {
	return fmt.Errorf("%s cannot be trusted: %w", path, errNoPrivate)
}

// MakePrivate cannot make a file private here: it fails.
func MakePrivate(path string) error {
	return fmt.Errorf("making %s private: %w", path, errNoPrivate)
}
