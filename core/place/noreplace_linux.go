package place

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// renameExcl is renameat2 with RENAME_NOREPLACE. A FUSE file system
// whose daemon does not take the flag gets EINVAL from the kernel
// (fusefat and exfat-fuse do: the kernel still answers EEXIST for a
// taken name first).
func renameExcl(fromDir int, from string, toDir int, to string) error {
	err := renameat2(fromDir, from, toDir, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("renaming without replacing: %w", errors.ErrUnsupported)
	}
	return err
}
