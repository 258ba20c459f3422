//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"syscall/js"
	"time"

	"github.com/ferry-project/ferry/core/app"
)

// pickedFS is an io/fs.FS of the File objects a person picked: each
// file at its webkitRelativePath (a picked folder) or its name, and the
// folders those paths imply. A file's bytes are read with Blob.slice as
// the transfer asks for them, never whole.
type pickedFS struct{ root *node }

type node struct {
	name     string
	dir      bool
	file     js.Value // a File, for a file
	size     int64
	mtime    time.Time
	children map[string]*node
}

// newPickedFS builds the tree; it returns the top-level names in order.
func newPickedFS(files js.Value) (*pickedFS, []string, error) {
	n := files.Get("length").Int()
	if n == 0 {
		return nil, nil, errors.New("no files picked")
	}
	root := &node{dir: true, children: map[string]*node{}}
	var tops []string
	for i := 0; i < n; i++ {
		f := files.Index(i)
		p := f.Get("webkitRelativePath").String()
		if f.Get("webkitRelativePath").Type() != js.TypeString || p == "" {
			p = f.Get("name").String()
		}
		if !fs.ValidPath(p) || p == "." {
			return nil, nil, fmt.Errorf("cannot send %q: not a usable name", p)
		}
		parts := strings.Split(p, "/")
		at := root
		for j, part := range parts {
			last := j == len(parts)-1
			c := at.children[part]
			if at == root && c == nil {
				tops = append(tops, part)
			}
			switch {
			case c == nil && last:
				mt := time.UnixMilli(int64(f.Get("lastModified").Float()))
				c = &node{name: part, file: f, size: int64(f.Get("size").Float()), mtime: mt}
			case c == nil:
				c = &node{name: part, dir: true, children: map[string]*node{}}
			case last || !c.dir:
				return nil, nil, fmt.Errorf("%s was picked twice: pick it once", p)
			}
			at.children[part] = c
			at = c
		}
	}
	return &pickedFS{root: root}, tops, nil
}

func (p *pickedFS) lookup(name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	at := p.root
	if name == "." {
		return at, nil
	}
	for _, part := range strings.Split(name, "/") {
		if !at.dir || at.children[part] == nil {
			return nil, fs.ErrNotExist
		}
		at = at.children[part]
	}
	return at, nil
}

func (p *pickedFS) Open(name string) (fs.File, error) {
	n, err := p.lookup(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if n.dir {
		return &dirFile{n: n}, nil
	}
	return &blobFile{n: n, next: js.Undefined()}, nil
}

func (p *pickedFS) Stat(name string) (fs.FileInfo, error) {
	n, err := p.lookup(name)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return info{n}, nil
}

type info struct{ n *node }

func (i info) Name() string {
	if i.n.name == "" {
		return "."
	}
	return i.n.name
}
func (i info) Size() int64 { return i.n.size }
func (i info) Mode() fs.FileMode {
	if i.n.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i info) ModTime() time.Time { return i.n.mtime }
func (i info) IsDir() bool        { return i.n.dir }
func (i info) Sys() any           { return nil }

type dirFile struct {
	n    *node
	list []fs.DirEntry
	read bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return info{d.n}, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: errors.New("is a folder")}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	if !d.read {
		d.read = true
		for _, c := range d.n.children {
			d.list = append(d.list, fs.FileInfoToDirEntry(info{c}))
		}
		sort.Slice(d.list, func(i, j int) bool { return d.list[i].Name() < d.list[j].Name() })
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

// readAhead is how much of a File one Blob.slice reads. Every slice
// costs a promise and, in Chromium, a round trip to the browser process
// that holds the file; the transfer asks for about 256 KiB at a time, so
// reading 4 MiB at once makes 16 times fewer of them.
const readAhead = 4 << 20

// blobFile reads a File front to back, readAhead bytes per slice, and
// serves the caller's reads from that buffer.
type blobFile struct {
	n    *node
	off  int64    // of the next byte to fetch from the File
	buf  []byte   // fetched and not yet read
	mem  []byte   // buf's backing array, allocated on first read
	next js.Value // the promise of the slice at off, or undefined
}

func (b *blobFile) Stat() (fs.FileInfo, error) { return info{b.n}, nil }
func (b *blobFile) Close() error {
	b.mem, b.buf, b.next = nil, nil, js.Undefined()
	return nil
}

func (b *blobFile) Read(p []byte) (int, error) {
	if len(b.buf) == 0 {
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// fill fetches the next slice of the File into buf. The browser reads
// a slice (Blob.arrayBuffer) on threads of its own, so fill asks for
// the slice after it at once: it is read while the transfer hashes and
// seals this one, and the wait for its promise is usually short.
func (b *blobFile) fill() error {
	if b.off >= b.n.size {
		return io.EOF
	}
	if b.next.IsUndefined() {
		b.ask(b.off)
	}
	ab, err := await(b.next)
	b.next = js.Undefined()
	if err != nil {
		// The browser fails a read of a File that changed since it was
		// picked (NotReadableError).
		return fmt.Errorf("reading %s: %w", b.n.name, err)
	}
	if b.mem == nil {
		b.mem = make([]byte, min(readAhead, b.n.size))
	}
	start := time.Now()
	n := js.CopyBytesToGo(b.mem, js.Global().Get("Uint8Array").New(ab))
	crossed(app.StageDiskRead, start, n)
	if n == 0 {
		return io.ErrUnexpectedEOF
	}
	b.buf = b.mem[:n]
	b.off += int64(n)
	passed(n)
	if b.off < b.n.size {
		b.ask(b.off)
	}
	return nil
}

// ask starts reading the slice at off; fill awaits it.
func (b *blobFile) ask(off int64) {
	end := min(off+readAhead, b.n.size)
	if err := catch(func() { b.next = b.n.file.Call("slice", off, end).Call("arrayBuffer") }); err != nil {
		b.next = js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(err.Error()))
	}
}

var _ fs.StatFS = (*pickedFS)(nil)
var _ fs.ReadDirFile = (*dirFile)(nil)
