package testkit

import (
	"io"
	"io/fs"
	"os"
	"sync"
)

// CountFS counts the bytes read from the files it opens, and the
// opens, per name: the disk reads a sender makes. With Plain set its
// files offer neither ReadAt nor Seek (a forward-only source).
type CountFS struct {
	fs.FS
	mu    sync.Mutex
	read  map[string]int64
	opens map[string]int
	Plain bool // files offer neither ReadAt nor Seek (a forward-only source)
}

func NewCountFS(dir string) *CountFS {
	return &CountFS{FS: os.DirFS(dir), read: map[string]int64{}, opens: map[string]int{}}
}

func (c *CountFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	cf := &countFile{f: f, c: c, name: name}
	if c.Plain {
		return plainFile{cf}, nil
	}
	return cf, nil
}

func (c *CountFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *CountFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

// BytesRead is how many bytes were read from name.
func (c *CountFS) BytesRead(name string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read[name]
}

// Opens is how many times name was opened.
func (c *CountFS) Opens(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens[name]
}

func (c *CountFS) add(name string, n int) {
	c.mu.Lock()
	c.read[name] += int64(n)
	c.mu.Unlock()
}

type countFile struct {
	f    fs.File
	c    *CountFS
	name string
}

func (f *countFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f *countFile) Close() error               { return f.f.Close() }
func (f *countFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	f.c.add(f.name, n)
	return n, err
}
func (f *countFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.f.(io.ReaderAt).ReadAt(p, off)
	f.c.add(f.name, n)
	return n, err
}
func (f *countFile) Seek(off int64, whence int) (int64, error) {
	return f.f.(io.Seeker).Seek(off, whence)
}

// plainFile hides everything but fs.File's methods.
type plainFile struct{ f *countFile }

func (p plainFile) Stat() (fs.FileInfo, error) { return p.f.Stat() }
func (p plainFile) Read(b []byte) (int, error) { return p.f.Read(b) }
func (p plainFile) Close() error               { return p.f.Close() }
