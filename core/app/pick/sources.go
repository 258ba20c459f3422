package pick

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/errkind"
)

// Sources is what a front end sends that it reads itself, where Ferry
// has no path to open: a browser's picked File objects, a phone's
// content URIs and security-scoped files. It is an io/fs.FS of those
// files at their paths and of the folders the paths imply, so that the
// engine reads them as any file: the same checks, hashes and resume.
// Folders have mode 0755 and files 0644: such files carry no mode that
// means anything to a receiver.
type Sources struct {
	root *sourceNode
	tops []string
}

// A Source is one file of a Sources. Size and ModTime say what the file
// is now: they are asked when the offer is made and again after the file
// was read, and a change fails the transfer as source_changed, as a file
// on disk would. Open starts reading from the first byte; the engine may
// open a file more than once (to read it again from the start when a
// resume finds the receiver's copy different), and closes every reader
// it opened. No seek is ever asked.
type Source interface {
	Size() int64
	ModTime() time.Time // the zero time when unknown: the receiver gives it its own
	Open() (io.ReadCloser, error)
}

// Add's errors: a path that is not an io/fs path of a file, and a path
// given twice (or under a file).
var (
	ErrSourcePath  = errkind.New(errkind.Usage, "not a usable path")
	ErrSourceTwice = errkind.New(errkind.Usage, "given twice")
)

type sourceNode struct {
	name     string
	src      Source // nil for a folder
	children map[string]*sourceNode
}

// NewSources is an empty Sources.
func NewSources() *Sources {
	return &Sources{root: &sourceNode{children: map[string]*sourceNode{}}}
}

// Add puts s at path (slash-separated, fs.ValidPath, not "."), with the
// folders that path implies.
func (f *Sources) Add(path string, s Source) error {
	if !fs.ValidPath(path) || path == "." {
		return ErrSourcePath
	}
	parts := strings.Split(path, "/")
	at := f.root
	for j, part := range parts {
		last := j == len(parts)-1
		c := at.children[part]
		if at == f.root && c == nil {
			f.tops = append(f.tops, part)
		}
		switch {
		case c == nil && last:
			c = &sourceNode{name: part, src: s}
		case c == nil:
			c = &sourceNode{name: part, children: map[string]*sourceNode{}}
		case last || c.src != nil:
			return ErrSourceTwice
		}
		at.children[part] = c
		at = c
	}
	return nil
}

// Items are the top-level files and folders as items to send, in the
// order they were first added.
func (f *Sources) Items() []event.Item {
	var items []event.Item
	for _, t := range f.tops {
		items = append(items, event.Item{FS: f, Path: t})
	}
	return items
}

func (f *Sources) lookup(name string) (*sourceNode, error) {
	if !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	at := f.root
	if name == "." {
		return at, nil
	}
	for rest, more := name, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, "/")
		if at = at.children[part]; at == nil {
			return nil, fs.ErrNotExist
		}
	}
	return at, nil
}

// Open opens a file through its Source, or lists a folder.
func (f *Sources) Open(name string) (fs.File, error) {
	n, err := f.lookup(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if n.src == nil {
		return &sourceDir{n: n}, nil
	}
	r, err := n.src.Open()
	if err != nil {
		return nil, err
	}
	return &sourceFile{n: n, r: r}, nil
}

// Stat answers without opening the file: a content URI's size and name
// come from a query, not from its stream.
func (f *Sources) Stat(name string) (fs.FileInfo, error) {
	n, err := f.lookup(name)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return n, nil
}

// A sourceNode is its own fs.FileInfo.

func (n *sourceNode) Name() string {
	if n.name == "" {
		return "."
	}
	return n.name
}

func (n *sourceNode) Size() int64 {
	if n.src == nil {
		return 0
	}
	return n.src.Size()
}

func (n *sourceNode) Mode() fs.FileMode {
	if n.src == nil {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

func (n *sourceNode) ModTime() time.Time {
	if n.src == nil {
		return time.Time{}
	}
	return n.src.ModTime()
}

func (n *sourceNode) IsDir() bool { return n.src == nil }
func (n *sourceNode) Sys() any    { return nil }

// sourceFile is an open Source as an fs.File. It has neither Seek nor
// ReadAt: the engine then opens the file again to start over.
type sourceFile struct {
	n *sourceNode
	r io.ReadCloser
	_ [0]func() // never compared: no equality function in the binary
}

func (s *sourceFile) Stat() (fs.FileInfo, error) { return s.n, nil }
func (s *sourceFile) Read(p []byte) (int, error) { return s.r.Read(p) }
func (s *sourceFile) Close() error               { return s.r.Close() }

type sourceDir struct {
	n    *sourceNode
	list []fs.DirEntry
	read bool
}

func (d *sourceDir) Stat() (fs.FileInfo, error) { return d.n, nil }
func (d *sourceDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: errIsFolder}
}

var errIsFolder = errors.New("is a folder")

func (d *sourceDir) Close() error { return nil }

func (d *sourceDir) ReadDir(count int) ([]fs.DirEntry, error) {
	if !d.read {
		d.read = true
		for _, c := range d.n.children {
			d.list = append(d.list, fs.FileInfoToDirEntry(c))
		}
		slices.SortFunc(d.list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	if count <= 0 {
		l := d.list
		d.list = nil
		return l, nil
	}
	if len(d.list) == 0 {
		return nil, io.EOF
	}
	k := min(count, len(d.list))
	l := d.list[:k]
	d.list = d.list[k:]
	return l, nil
}

var _ fs.StatFS = (*Sources)(nil)
var _ fs.ReadDirFile = (*sourceDir)(nil)

// ItemSources is what the history names a send of items by
// (ManyConfig's Paths and Text): the paths on disk, and whether a text
// goes too. An item read through an FS names nothing.
func ItemSources(items []event.Item) (paths []string, text bool) {
	for _, it := range items {
		if it.Path != "" && it.FS == nil {
			paths = append(paths, it.Path)
		}
		text = text || it.Path == "" && it.FS == nil
	}
	return paths, text
}
