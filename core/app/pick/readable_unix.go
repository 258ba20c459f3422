//go:build linux || darwin || freebsd

package pick

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readable asks the kernel whether the process may open path for reading,
// with one faccessat and no descriptor: CheckPaths calls it for every file
// of a folder before the engine walks it again, and an open and a close
// per file were a fifth of a sender's CPU on a folder of small files.
// AT_EACCESS checks the effective IDs, as open does, so a set-user-ID
// ferry or root gets the answer open would give (root may read every
// regular file, both ways). A check that only open makes (a security
// module's file-open hook, a network file system that decides at open) is
// left to the engine, which opens the file to send it and reports a
// failure as a transfer error.
func readable(path string) error {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.R_OK, unix.AT_EACCESS)
}

// readableIn is readable for the file name in the open folder dir,
// relative to it, so the kernel does not walk its path from the root
// again; with no folder (nil: the check holds none that deep) it asks by
// the whole path, the folder's path parent joined with name.
func readableIn(dir *os.File, name, parent string) error {
	if dir == nil {
		return readable(filepath.Join(parent, name))
	}
	return unix.Faccessat(int(dir.Fd()), name, unix.R_OK, unix.AT_EACCESS)
}
