//go:build linux || darwin

package place

import (
	"os"
	"path"
)

// renameNoReplace renames from to to, both inside root, failing with an
// error that matches fs.ErrExist when to exists, and one that matches
// errors.ErrUnsupported when the file system cannot promise that (some
// FUSE file systems, old kernels). The folders are opened through root,
// so the rename itself follows no link out of it.
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
	return renameExcl(int(fromDir.Fd()), path.Base(from), int(toDir.Fd()), path.Base(to))
}

// renameNoReplace is the package's renameNoReplace for a partial file,
// relative to the kept handles on the partial folder and on to's folder
// (kept.go): one call where the general one opens both folders.
func (d *Dest) renameNoReplace(partial, to string) error {
	pdir, pname, _ := CutLast(partial)
	if pdir != PartialDir {
		return renameNoReplace(d.root, partial, to)
	}
	from, err := d.partialFolder()
	if err != nil {
		return err
	}
	dir, name, _ := CutLast(to)
	return d.atFolder(dir, func(toDir int) error { return renameExcl(int(from.Fd()), pname, toDir, name) })
}
