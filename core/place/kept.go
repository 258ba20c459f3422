package place

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// The folders a transfer writes into are opened once, through the root,
// and kept: the partial folder for the whole transfer, and the folder a
// file was last placed in until a file goes to another one (a sender
// walks its tree folder by folder, so one handle serves a folder's
// files, and a transfer of many folders never holds many). Calls made
// relative to a kept handle name a single component and follow no link
// (O_NOFOLLOW, O_EXCL, a rename), so they reach no further than os.Root
// would. Like the root itself, a kept folder that someone moves while
// the transfer writes into it takes the files it is given with it; one
// removed and made again under its name is opened afresh (see
// renameNoReplace).

// partialFolder returns the kept handle on the partial folder, which
// ensurePartialDir made and checked.
func (d *Dest) partialFolder() (*os.File, error) {
	if d.partDir != nil {
		return d.partDir, nil
	}
	if err := d.ensurePartialDir(); err != nil {
		return nil, err
	}
	f, err := d.root.Open(PartialDir)
	if err != nil {
		return nil, err
	}
	d.partDir = f
	return f, nil
}

// folder returns a kept handle on folder dir under the destination
// ("" for the destination itself).
func (d *Dest) folder(dir string) (*os.File, error) {
	if dir == "" {
		dir = "."
	}
	if d.lastDir != nil && d.lastAt == dir {
		return d.lastDir, nil
	}
	f, err := d.root.Open(dir)
	if err != nil {
		return nil, err
	}
	if d.lastDir != nil {
		d.lastDir.Close()
	}
	d.lastDir, d.lastAt = f, dir
	return f, nil
}

// atFolder runs op on the kept handle of folder dir (see folder), and
// once more on a fresh one when op finds nothing where it looked and the
// handle was kept: the kept folder may be one that was removed, and
// made again under its name, since it was opened.
func (d *Dest) atFolder(dir string, op func(fd int) error) error {
	f, err := d.folder(dir)
	if err != nil {
		return err
	}
	err = op(int(f.Fd()))
	if errors.Is(err, fs.ErrNotExist) && d.dropFolder() {
		if f, err = d.folder(dir); err != nil {
			return err
		}
		err = op(int(f.Fd()))
	}
	return err
}

// dropFolder closes the kept handle on the folder last placed into, if
// there is one, so that the next folder call opens it afresh.
func (d *Dest) dropFolder() bool {
	if d.lastDir == nil {
		return false
	}
	d.lastDir.Close()
	d.lastDir, d.lastAt = nil, ""
	return true
}

// dropKept closes the kept handles.
func (d *Dest) dropKept() {
	if d.partDir != nil {
		d.partDir.Close()
		d.partDir = nil
	}
	if d.lastDir != nil {
		d.lastDir.Close()
		d.lastDir, d.lastAt = nil, ""
	}
}

// fullName names p as the root names the files it opens, so that the
// receiver's own errors say where on its disk a file is.
func (d *Dest) fullName(p string) string {
	return filepath.Join(d.root.Name(), filepath.FromSlash(p))
}
