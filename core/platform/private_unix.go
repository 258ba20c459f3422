//go:build unix

package platform

import (
	"fmt"
	"os"
)

// CheckPrivate returns a *NotPrivateError when group or others have any
// permission on the open file f, whose path is path.
func CheckPrivate(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checking who can read %s: %w", path, err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &NotPrivateError{Path: path, Who: fmt.Sprintf("mode %v", perm), Fix: "run chmod 600 on it"}
	}
	return nil
}

// MakePrivate gives the file at path mode 0600. Call it before writing
// the secret.
func MakePrivate(path string) error {
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("making %s private: %w", path, err)
	}
	return nil
}
