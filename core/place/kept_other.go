//go:build !linux

package place

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// createPartial has no one-call way here: the caller takes the general
// way (Lstat, then OpenFile through the root).
func (d *Dest) createPartial(p string, perm fs.FileMode) (*Partial, error) { return nil, nil }

// ownFolder is not asked here: createPartial, the only one to create a
// partial file with its own mode, has no one-call way here.
func ownFolder(fi fs.FileInfo) bool { return false }

// setFileTime is not done on the open file here: Finish sets the time
// through the root after closing it.
func setFileTime(f *os.File, t time.Time) error { return errors.ErrUnsupported }
