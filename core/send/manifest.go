package send

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
)

// source is where the sender reads an entry from: a file in a file
// system (the OS disk through os.DirFS, or an Item's FS), or a text held
// in memory. Folders have neither.
type source struct {
	fsys  fs.FS
	path  string // in fsys
	shown string // what errors call it: the OS path, or path
	text  string
}

// open opens the source's file.
func (s source) open() (fs.File, error) {
	f, err := s.fsys.Open(s.path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", s.shown, err)
	}
	return f, nil
}

var errTooMany = fmt.Errorf("more than %d entries in one transfer", transfer.MaxEntries)

// buildManifest turns what a person picked into entries, in the order
// their bytes will be sent: each item in turn, a folder as a pre-order
// walk in lexical order (so a folder always comes before what it holds).
// Inside folders, symlinks and special files (devices, sockets, pipes)
// are left out: following a link could send a whole other tree, and the
// rest has no content to send. A top-level item that is a link is
// followed, since the person named it.
func buildManifest(items []event.Item) ([]event.Entry, []source, error) {
	m := manifest{tops: make(map[string]bool)}
	for _, it := range items {
		var err error
		if it.Path == "" {
			err = m.addText(it)
		} else {
			err = m.addItem(it)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if len(m.entries) == 0 {
		return nil, nil, errors.New("nothing to send")
	}
	return m.entries, m.srcs, nil
}

// manifest is a manifest being built: the entries so far, where each
// one's bytes come from, and the top-level names taken.
type manifest struct {
	entries []event.Entry
	srcs    []source
	tops    map[string]bool // lower-cased: the receiver refuses names that differ only in case
}

// add appends one entry, or fails with errTooMany at MaxEntries.
func (m *manifest) add(e event.Entry, s source) error {
	if len(m.entries) >= transfer.MaxEntries {
		return errTooMany
	}
	m.entries = append(m.entries, e)
	m.srcs = append(m.srcs, s)
	return nil
}

// addText adds a text item. Its name defaults to text.txt; a name
// already taken at the top is numbered (place.ClashName) rather than refused.
func (m *manifest) addText(it event.Item) error {
	name := it.Name
	if name == "" {
		name = "text.txt"
	}
	if len(it.Text) > transfer.MaxTextBytes {
		return fmt.Errorf("text %q is %d bytes, over the limit of %d", name, len(it.Text), transfer.MaxTextBytes)
	}
	base := name
	for n := 1; m.tops[strings.ToLower(name)]; n++ {
		name = place.ClashName(base, n, false)
	}
	m.tops[strings.ToLower(name)] = true
	return m.add(event.Entry{Path: name, Kind: event.KindText, Size: int64(len(it.Text)), Mode: 0o644, ModTime: time.Now()}, source{text: it.Text})
}

// addItem adds a file or folder item, refusing a second item under the
// same top-level name.
func (m *manifest) addItem(it event.Item) error {
	root, err := openItem(it)
	if err != nil {
		return err
	}
	fi, err := fs.Stat(root.fsys, root.path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", it.Path, err)
	}
	if m.tops[strings.ToLower(root.base)] {
		return fmt.Errorf("two items are named %q: %w", root.base, transfer.ErrRefusedPath)
	}
	m.tops[strings.ToLower(root.base)] = true
	switch {
	case fi.Mode().IsRegular():
		return m.add(fileEntry(root.base, fi), root.source(root.path))
	case fi.IsDir():
		return m.addFolder(root, it.Path)
	default:
		return fmt.Errorf("%s is neither a regular file nor a folder", it.Path)
	}
}

// addFolder adds a folder item and what it holds, leaving out links and
// special files. shown is the item's path as the person gave it, for
// errors.
func (m *manifest) addFolder(root itemRoot, shown string) error {
	handled, err := m.addDiskFolder(root)
	if !handled {
		err = m.walkFS(root)
	}
	if err != nil {
		if errors.Is(err, errTooMany) {
			return err
		}
		return fmt.Errorf("reading folder %s: %w", shown, err)
	}
	return nil
}

// walkFS adds the folder at root and what it holds, walking it with
// fs.WalkDir.
func (m *manifest) walkFS(root itemRoot) error {
	return fs.WalkDir(root.fsys, root.path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		name := root.base
		if p != root.path {
			name = root.base + "/" + root.rel(p)
		}
		if d.IsDir() {
			return m.add(event.Entry{Path: name, Kind: event.KindDir, Mode: info.Mode().Perm(), ModTime: info.ModTime()}, source{})
		}
		return m.add(fileEntry(name, info), root.source(p))
	})
}

func fileEntry(name string, fi fs.FileInfo) event.Entry {
	return event.Entry{Path: name, Kind: event.KindFile, Size: fi.Size(), Mode: fi.Mode().Perm(), ModTime: fi.ModTime()}
}

// itemRoot is an item as a file system and a path in it: the OS disk is
// os.DirFS of the item's parent folder, so that both kinds of item take
// one code path.
type itemRoot struct {
	fsys fs.FS
	path string // the item, in fsys
	base string // the name it is sent under
	dir  string // OS items: the parent folder, for errors; "" for FS items
}

func openItem(it event.Item) (itemRoot, error) {
	if strings.ContainsAny(it.Name, `/\`) {
		return itemRoot{}, fmt.Errorf("%s: the name %q is more than one name: %w", it.Path, it.Name, transfer.ErrRefusedPath)
	}
	if it.FS != nil {
		if !fs.ValidPath(it.Path) {
			return itemRoot{}, fmt.Errorf("%q is not a path in the item's file system (io/fs.ValidPath)", it.Path)
		}
		base := it.Name
		if base == "" {
			if it.Path == "." {
				return itemRoot{}, errors.New("an item that is a whole file system needs a name")
			}
			base = path.Base(it.Path)
		}
		return itemRoot{fsys: it.FS, path: it.Path, base: base}, nil
	}
	abs, err := filepath.Abs(it.Path)
	if err != nil {
		return itemRoot{}, fmt.Errorf("resolving %s: %w", it.Path, err)
	}
	dir, base := filepath.Split(abs)
	if base == "" { // a file system's root: no name to send it under
		return itemRoot{}, fmt.Errorf("%s has no name to send it under", it.Path)
	}
	name := base
	if it.Name != "" {
		name = it.Name
	}
	return itemRoot{fsys: newDiskDir(dir), path: base, base: name, dir: dir}, nil
}

// rel is p, a path under the item's root folder, relative to that root.
func (r itemRoot) rel(p string) string {
	if r.path == "." {
		return p
	}
	return p[len(r.path)+1:]
}

// source is the source of the file at p.
func (r itemRoot) source(p string) source {
	shown := p
	if r.dir != "" {
		shown = filepath.Join(r.dir, filepath.FromSlash(p))
	}
	return source{fsys: r.fsys, path: p, shown: shown}
}
