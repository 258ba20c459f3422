package send

import (
	"io/fs"
	"os"
)

// diskDir is a folder of this device's disk as a file system: os.DirFS,
// but for how it opens a file to send (openFile: on Linux one openat and
// no more, where os.DirFS's Open makes four calls besides, readying a
// descriptor for a poller that a regular file never uses). A folder of
// many small files opens one file per entry, so that is a cost per file.
type diskDir struct {
	dir  string
	fsys fs.FS // os.DirFS(dir), for everything but opening a file
}

func newDiskDir(dir string) diskDir { return diskDir{dir: dir, fsys: os.DirFS(dir)} }

func (d diskDir) Open(name string) (fs.File, error) { return d.openFile(name) }

func (d diskDir) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.fsys, name) }

func (d diskDir) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.fsys, name) }
