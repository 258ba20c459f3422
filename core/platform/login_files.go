//go:build unix

package platform

import (
	"fmt"
	"os"
	"path/filepath"
)

// On unix a login item is one file (loginItemPath) whose text
// loginItemText gives: a launchd agent on darwin, an XDG autostart entry
// elsewhere.

func loginItemEnabled(l LoginItem) (bool, error) {
	p, err := loginItemPath(l)
	if err != nil {
		return false, err
	}
	return fileExists(p)
}

func enableLoginItem(l LoginItem) error {
	p, err := loginItemPath(l)
	if err != nil {
		return err
	}
	return writeFileAtomic(p, []byte(loginItemText(l)))
}

func disableLoginItem(l LoginItem) error {
	p, err := loginItemPath(l)
	if err != nil {
		return err
	}
	return removeFile(p)
}

func loginItemWhere(l LoginItem) string {
	p, err := loginItemPath(l)
	if err != nil {
		return err.Error()
	}
	return p
}

// writeFileAtomic writes data to path through a temporary file in the
// same folder, so a login that reads the entry never sees half of it.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return ReplaceFile(tmp.Name(), path)
}

// removeFile removes path; a missing file is no error.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// fileExists reports whether path exists.
func fileExists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case os.IsNotExist(err):
		return false, nil
	}
	return false, err
}
