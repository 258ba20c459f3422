//go:build !linux

package place

import (
	"errors"
	"os"
	"time"
)

// createPartial has no one-call way here: the caller takes the general
// way (Lstat, then OpenFile through the root).
func (d *Dest) createPartial(p string) (*Partial, error) { return nil, nil }

// setFileTime is not done on the open file here: Finish sets the time
// through the root after closing it.
func setFileTime(f *os.File, t time.Time) error { return errors.ErrUnsupported }
