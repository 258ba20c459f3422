package place

import (
	"io"
	"io/fs"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawFile is an open file's bare descriptor. Its calls are those os.File
// would make, without the poller's bookkeeping: a write is retried after
// EINTR and continued after a short count, as os.File's is.
type rawFile struct{ fd int }

func (r rawFile) write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Write(r.fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if m > 0 {
			n += m
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.ErrUnexpectedEOF
		}
	}
	return n, nil
}

func (r rawFile) close() error { return unix.Close(r.fd) }

func (r rawFile) chmod(mode fs.FileMode) error {
	for {
		err := unix.Fchmod(r.fd, uint32(mode.Perm()))
		if err != unix.EINTR {
			return err
		}
	}
}

// setTime is futimens(2): utimensat with no path.
func (r rawFile) setTime(t time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(r.fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
