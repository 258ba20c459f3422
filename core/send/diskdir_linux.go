package send

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openFile opens name as os.DirFS would (a valid io/fs path under the
// folder, links followed as os.Open follows them), with one openat: the
// *os.File it makes is not registered with the poller, which a regular
// file is not anyway.
func (d diskDir) openFile(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	full := filepath.Join(d.dir, name)
	for {
		fd, err := unix.Open(full, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), full), nil
	}
}
