//go:build !linux && !darwin

package place

import (
	"errors"
	"os"
)

// renameNoReplace has no way here to rename without replacing through a
// root (Windows' MoveFileEx without MOVEFILE_REPLACE_EXISTING would need
// the paths outside os.Root): the caller checks, then renames.
func renameNoReplace(root *os.Root, from, to string) error { return errors.ErrUnsupported }

// renameNoReplace is not available here either: claim links or checks.
func (d *Dest) renameNoReplace(partial, to string) error { return errors.ErrUnsupported }
