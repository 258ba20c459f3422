//go:build !linux

package place

import (
	"io/fs"
	"time"
)

// Files without a name are Linux's (unnamed_linux.go).

func (d *Dest) probeUnnamed() bool { return false }

// OpenUnnamed returns nil: every partial file has a name here.
func (d *Dest) OpenUnnamed(path string, size int64, modTime time.Time, mode fs.FileMode) (*Partial, error) {
	return nil, nil
}

type unnamedEntry struct{}

func (d *Dest) keepUnnamed(f *Partial) {}

func (d *Dest) linkNoReplace(f *Partial, to string) error {
	panic("place: a file without a name on a system without them")
}

func (d *Dest) unlinkPlaced(to string) {}
