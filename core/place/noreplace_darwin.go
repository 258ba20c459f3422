package place

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// renameExcl is renameatx_np with RENAME_EXCL.
func renameExcl(fromDir int, from string, toDir int, to string) error {
	err := unix.RenameatxNp(fromDir, from, toDir, to, unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("renaming without replacing: %w", errors.ErrUnsupported)
	}
	return err
}
