package place

import (
	"errors"
	"fmt"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/platform"
)

// The sentinels a caller branches on; core/transfer's ErrRefusedPath and
// ErrNoSpace are these.
var (
	// ErrRefusedPath: a path that no receiver writes (CheckPath), or a
	// destination that holds a symlink or a stranger's file where a
	// transfer needs a folder or a partial file.
	ErrRefusedPath = errkind.New(errkind.RefusedPath, "refused path")
	// ErrNoSpace: the destination's file system is full (DiskError).
	ErrNoSpace = errkind.New(errkind.NoSpace, "not enough free space")
)

// DiskError marks a full disk as ErrNoSpace (core/platform knows each
// OS's codes for it: ENOSPC on Unix, ERROR_DISK_FULL on Windows).
func DiskError(err error) error {
	if platform.IsNoSpace(err) {
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}

// inTheWay is an error that says what stands in the destination where
// Ferry's own partial folder or a partial file goes: for this device's
// person only. A sender is told only that the destination cannot be
// written (core/transfer's reasonUnwritable); InTheWay finds it.
type inTheWay struct{ err error }

func (e *inTheWay) Error() string { return e.err.Error() }
func (e *inTheWay) Unwrap() error { return e.err }

// InTheWay reports whether err says that something in the destination
// stands where the partial folder or a partial file goes, in words a
// peer must not be told.
func InTheWay(err error) bool {
	var w *inTheWay
	return errors.As(err, &w)
}
