package send

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"golang.org/x/sys/unix"
)

// addDiskFolder is addFolder's walk for a folder on this device's disk:
// the same entries in the same order as fs.WalkDir over os.DirFS, with
// the same errors, in fewer and shorter calls. Each folder is opened
// once, relative to its parent's descriptor, and listed; each entry
// that is sent is then stated once relative to it (fstatat), where
// fs.WalkDir's DirEntry.Info makes an lstat that walks the whole path
// from the root, a cost per file. handled is false when root is not on
// the disk: addFolder walks it with fs.WalkDir.
func (m *manifest) addDiskFolder(root itemRoot) (handled bool, err error) {
	d, ok := root.fsys.(diskDir)
	if !ok || !fs.ValidPath(root.path) || root.path == "." {
		return false, nil
	}
	// The item itself is followed when it is a link, as fs.Stat follows
	// it: the person named it.
	fd, err := openDir(unix.AT_FDCWD, filepath.Join(d.dir, root.path))
	if err != nil {
		return true, &fs.PathError{Op: "open", Path: root.path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return true, &fs.PathError{Op: "stat", Path: root.path, Err: err}
	}
	if err := m.add(dirEntry(root.base, &st), source{}); err != nil {
		unix.Close(fd)
		return true, err
	}
	return true, m.walkDisk(root, d, fd, root.path, root.base, 1)
}

// walkDisk adds what the folder open at fd holds (p in root's file
// system, sent as name, held levels are open above it, itself
// included), folders before what they hold, in lexical order, leaving
// out links and special files; it closes fd.
func (m *manifest) walkDisk(root itemRoot, d diskDir, fd int, p, name string, held int) error {
	// The full path, as os.ReadDir has it: where the file system gives
	// no entry's type, ReadDir lstats the entry by it.
	f := os.NewFile(uintptr(fd), filepath.Join(d.dir, p))
	defer f.Close()
	list, err := f.ReadDir(-1)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Path = p // as os.DirFS's ReadDir names it
		}
		return err
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	at, sub := fd, held+1
	if held >= maxHeld {
		// Deeper than the folders held: what is below is stated and
		// opened by its whole path, as os.DirFS does, and this folder
		// is not held while it is walked.
		at, sub = unix.AT_FDCWD, held
		f.Close()
	}
	for _, de := range list {
		if !de.IsDir() && !de.Type().IsRegular() {
			continue
		}
		base := de.Name()
		cp := p + "/" + base
		rel := base // to at
		if at == unix.AT_FDCWD {
			rel = filepath.Join(d.dir, cp)
		}
		var st unix.Stat_t
		if err := fstatat(at, rel, &st); err != nil {
			return &fs.PathError{Op: "lstat", Path: filepath.Join(d.dir, cp), Err: err}
		}
		cname := name + "/" + base
		if !de.IsDir() {
			e := event.Entry{Path: cname, Kind: event.KindFile, Size: st.Size, Mode: fs.FileMode(st.Mode & 0o777), ModTime: time.Unix(st.Mtim.Unix())}
			if err := m.add(e, root.source(cp)); err != nil {
				return err
			}
			continue
		}
		if err := m.add(dirEntry(cname, &st), source{}); err != nil {
			return err
		}
		subfd, err := openDir(at, rel)
		if err != nil {
			return &fs.PathError{Op: "open", Path: cp, Err: err}
		}
		if err := m.walkDisk(root, d, subfd, cp, cname, sub); err != nil {
			return err
		}
	}
	return nil
}

func dirEntry(name string, st *unix.Stat_t) event.Entry {
	return event.Entry{Path: name, Kind: event.KindDir, Mode: fs.FileMode(st.Mode & 0o777), ModTime: time.Unix(st.Mtim.Unix())}
}

// fstatat is lstat of name in the folder open at fd.
func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
