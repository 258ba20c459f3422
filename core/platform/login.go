package platform

import (
	"fmt"
	"os"
	"path/filepath"
)

// LoginItem starts a program when this user logs in to the desktop (see
// the package doc's Login items). Enable and Disable write and remove
// the OS's entry for it; Enabled reports whether the entry is there.
type LoginItem struct {
	// ID is the app's reverse-DNS ID (io.github.ferry-project.ferry): it
	// names the entry, so one app has at most one.
	ID      string
	Name    string   // what the desktop shows (Ferry)
	Comment string   // a line saying what it does, where the OS shows one
	Command []string // the program, absolute, and its arguments
}

func (l LoginItem) check() error {
	if l.ID == "" || len(l.Command) == 0 || !filepath.IsAbs(l.Command[0]) {
		return fmt.Errorf("login item %q: needs an ID and an absolute program path (got %q)", l.ID, l.Command)
	}
	return nil
}

// Enabled reports whether the entry exists.
func (l LoginItem) Enabled() (bool, error) { return loginItemEnabled(l) }

// Enable writes the entry, replacing one with the same ID.
func (l LoginItem) Enable() error {
	if err := l.check(); err != nil {
		return err
	}
	return enableLoginItem(l)
}

// Disable removes the entry; one that is not there is no error.
func (l LoginItem) Disable() error { return disableLoginItem(l) }

// Where names the entry for a person: its file, or its registry value.
func (l LoginItem) Where() string { return loginItemWhere(l) }

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
