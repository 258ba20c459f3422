package transfer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
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

var errTooMany = fmt.Errorf("more than %d entries in one transfer", MaxEntries)

// buildManifest turns what a person picked into entries, in the order
// their bytes will be sent: each item in turn, a folder as a pre-order
// walk in lexical order (so a folder always comes before what it holds).
// Inside folders, symlinks and special files (devices, sockets, pipes)
// are left out: following a link could send a whole other tree, and the
// rest has no content to send. A top-level item that is a link is
// followed, since the person named it.
func buildManifest(items []Item) ([]Entry, []source, error) {
	var (
		entries []Entry
		srcs    []source
		tops    = make(map[string]bool)
	)
	add := func(e Entry, s source) error {
		if len(entries) >= MaxEntries {
			return errTooMany
		}
		entries = append(entries, e)
		srcs = append(srcs, s)
		return nil
	}
	for _, it := range items {
		if it.Path == "" {
			name := it.Name
			if name == "" {
				name = "text.txt"
			}
			if len(it.Text) > MaxTextBytes {
				return nil, nil, fmt.Errorf("text %q is %d bytes, over the limit of %d", name, len(it.Text), MaxTextBytes)
			}
			base := name
			for n := 1; tops[strings.ToLower(name)]; n++ {
				name = clashName(base, n, false)
			}
			tops[strings.ToLower(name)] = true
			if err := add(Entry{Path: name, Kind: KindText, Size: int64(len(it.Text)), Mode: 0o644, ModTime: time.Now()}, source{text: it.Text}); err != nil {
				return nil, nil, err
			}
			continue
		}
		root, err := openItem(it)
		if err != nil {
			return nil, nil, err
		}
		fi, err := fs.Stat(root.fsys, root.path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", it.Path, err)
		}
		base := root.base
		if tops[strings.ToLower(base)] {
			return nil, nil, fmt.Errorf("two items are named %q: %w", base, ErrRefusedPath)
		}
		tops[strings.ToLower(base)] = true
		switch {
		case fi.Mode().IsRegular():
			if err := add(fileEntry(base, fi), root.source(root.path)); err != nil {
				return nil, nil, err
			}
		case fi.IsDir():
			err := fs.WalkDir(root.fsys, root.path, func(p string, d fs.DirEntry, err error) error {
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
				name := base
				if p != root.path {
					name = base + "/" + root.rel(p)
				}
				if d.IsDir() {
					return add(Entry{Path: name, Kind: KindDir, Mode: info.Mode().Perm(), ModTime: info.ModTime()}, source{})
				}
				return add(fileEntry(name, info), root.source(p))
			})
			if err != nil {
				if errors.Is(err, errTooMany) {
					return nil, nil, err
				}
				return nil, nil, fmt.Errorf("reading folder %s: %w", it.Path, err)
			}
		default:
			return nil, nil, fmt.Errorf("%s is neither a regular file nor a folder", it.Path)
		}
	}
	if len(entries) == 0 {
		return nil, nil, errors.New("nothing to send")
	}
	return entries, srcs, nil
}

func fileEntry(name string, fi fs.FileInfo) Entry {
	return Entry{Path: name, Kind: KindFile, Size: fi.Size(), Mode: fi.Mode().Perm(), ModTime: fi.ModTime()}
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

func openItem(it Item) (itemRoot, error) {
	if strings.ContainsAny(it.Name, `/\`) {
		return itemRoot{}, fmt.Errorf("%s: the name %q is more than one name: %w", it.Path, it.Name, ErrRefusedPath)
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
	return itemRoot{fsys: os.DirFS(dir), path: base, base: name, dir: dir}, nil
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
