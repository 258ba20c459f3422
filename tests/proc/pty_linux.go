package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// OpenPTY opens a pseudo-terminal pair: the test reads and writes the
// master, ferry gets the slave as its terminal. (Linux's /dev/ptmx,
// unlocked by ioctl; this is all that creack/pty would do here.) Both
// ends are closed at cleanup.
func OpenPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("opening /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlocking pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		m.Close()
		t.Fatalf("opening pty slave: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TerminalOutput collects what ferry writes to the terminal whose master
// is m. A master read fails with EIO once every slave is closed, which
// ends the stream: close the test's own slave after starting ferry.
func TerminalOutput(m *os.File) *Output {
	return Collect(readerFunc(func(b []byte) (int, error) {
		n, err := m.Read(b)
		if errors.Is(err, syscall.EIO) {
			err = os.ErrClosed
		}
		return n, err
	}))
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }
