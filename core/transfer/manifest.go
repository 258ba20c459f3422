package transfer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// source is where the sender reads an entry from: a file on disk, or a
// text held in memory. Folders have neither.
type source struct {
	path string
	text string
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
		abs, err := filepath.Abs(it.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("resolving %s: %w", it.Path, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", it.Path, err)
		}
		base := filepath.Base(abs)
		if tops[strings.ToLower(base)] {
			return nil, nil, fmt.Errorf("two items are named %q: %w", base, ErrRefusedPath)
		}
		tops[strings.ToLower(base)] = true
		switch {
		case fi.Mode().IsRegular():
			if err := add(fileEntry(base, fi), source{path: abs}); err != nil {
				return nil, nil, err
			}
		case fi.IsDir():
			err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
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
				rel, err := filepath.Rel(abs, p)
				if err != nil {
					return err
				}
				name := base
				if rel != "." {
					name = base + "/" + filepath.ToSlash(rel)
				}
				if d.IsDir() {
					return add(Entry{Path: name, Kind: KindDir, Mode: info.Mode().Perm(), ModTime: info.ModTime()}, source{})
				}
				return add(fileEntry(name, info), source{path: p})
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
