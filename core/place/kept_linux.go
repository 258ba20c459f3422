package place

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// createPartial creates partial file p, which must not exist, with mode
// perm (less the system's mask), with one openat in the kept partial
// folder. It returns nil and no error when a
// file of that name is there already (a partial file to truncate) or p
// is not in the partial folder: the caller takes the general way.
func (d *Dest) createPartial(p string, perm fs.FileMode) (*Partial, error) {
	dir, name, ok := CutLast(p)
	if !ok || dir != PartialDir {
		return nil, nil
	}
	pd, err := d.partialFolder()
	if err != nil {
		return nil, nil // the general way says what is wrong
	}
	fd, err := openat(int(pd.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if errors.Is(err, unix.EEXIST) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening partial file: %w", DiskError(&fs.PathError{Op: "openat", Path: d.fullName(p), Err: err}))
	}
	return &Partial{raw: rawFile{fd}, path: p, d: d, perm: perm.Perm()}, nil
}

// ownFolder reports whether the folder fi describes belongs to this
// process's effective user. One that another user made (in a shared
// destination such as /tmp, for a receiver run as root) is readable by
// that user whatever its mode says.
func ownFolder(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// setFileTime gives the open file f the access and modification time t:
// futimens(2), which is utimensat with no path.
func setFileTime(f *os.File, t time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	var err error
	rc, cerr := f.SyscallConn()
	if cerr != nil {
		return cerr
	}
	rc.Control(func(fd uintptr) {
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, fd, 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
		if e != 0 {
			err = e
		}
	})
	if err != nil {
		return &fs.PathError{Op: "futimens", Path: f.Name(), Err: err}
	}
	return nil
}
