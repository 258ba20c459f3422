package platform

import (
	"fmt"
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
