package place

import (
	"errors"
	"fmt"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, both inside root, failing with an
// error that matches fs.ErrExist when to exists; errors.ErrUnsupported
// when the file system cannot promise that (ENOTSUP, EINVAL).
func renameNoReplace(root *os.Root, from, to string) error {
	fromDir, err := root.Open(path.Dir(from))
	if err != nil {
		return err
	}
	defer fromDir.Close()
	toDir, err := root.Open(path.Dir(to))
	if err != nil {
		return err
	}
	defer toDir.Close()
	err = unix.RenameatxNp(int(fromDir.Fd()), path.Base(from), int(toDir.Fd()), path.Base(to), unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("renaming without replacing: %w", errors.ErrUnsupported)
	}
	return err
}
