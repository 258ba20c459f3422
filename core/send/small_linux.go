package send

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
	"golang.org/x/sys/unix"
)

// sendSmall sends entry i, a file on this device's disk that fits in
// one data chunk and that the receiver takes whole, the way sendEntry
// would, in fewer calls: a folder of small files pays sendEntry's
// machinery once a file. The file is read through its raw descriptor
// (no *os.File: os.NewFile's fcntl, its poller lock on each Read and
// its finalizer), with one read as its size is known, and checked with
// one fstat after that read, not one before and one after: the check
// that counts is the one after the last byte was read, and it still
// comes before any of the file's bytes are sent, so a file that changed
// is refused exactly as sendEntry refuses it. handled is false when
// entry i is not such a file: then sendEntry sends it.
func (s *sender) sendSmall(ctx context.Context, i int, e event.Entry, src source) (handled bool, err error) {
	d, ok := src.fsys.(diskDir)
	if !ok {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return true, context.Cause(ctx)
	}
	fd, err := d.openRaw(src.path)
	if err != nil {
		return true, fmt.Errorf("opening %s: %w", src.shown, err)
	}
	defer unix.Close(fd)

	n := int(e.Size)
	chunk := s.buf[wire.HeaderLen : wire.HeaderLen+n]
	start := time.Now()
	got, rerr := readFull(fd, chunk)
	s.Timers.Since(diag.DiskRead, start, got)
	if s.cfg.read != nil {
		s.cfg.read.Add(int64(got))
	}
	// The file's state is checked before a read error is reported, as
	// sendEntry's check before reading would have found a change first.
	if err := unchangedFd(fd, e, src.shown); err != nil {
		return true, err
	}
	if rerr != nil {
		return true, fmt.Errorf("reading %s: %w", src.shown, &fs.PathError{Op: "read", Path: src.shown, Err: rerr})
	}
	if got < n {
		return true, fmt.Errorf("%s ended %d bytes early: %w", src.shown, n-got, transfer.ErrSourceChanged)
	}
	h := &s.hash
	h.Reset()
	start = time.Now()
	h.Write(chunk)
	s.Timers.Since(diag.HashSend, start, n)

	if err := s.writeMsg(wire.MsgBegin, wire.Begin{Index: i}.Encode()); err != nil {
		return true, err
	}
	if n > 0 {
		wire.PutHeader(s.buf, wire.MsgData, n)
		if _, err := s.Conn.Write(s.buf[:wire.HeaderLen+n]); err != nil {
			return true, fmt.Errorf("sending %s: %w", e.Path, transfer.NetError(err))
		}
		s.sum.Bytes += int64(n)
		s.meter.Add(int64(n))
	}
	var end wire.End
	end.Index = i
	h.Sum(end.Hash[:0])
	if err := s.writeMsg(wire.MsgEnd, end.Encode()); err != nil {
		return true, err
	}
	s.meter.Entry()
	return true, nil
}

// readFull reads len(b) bytes from fd, fewer only at the end of the
// file.
func readFull(fd int, b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := unix.Read(fd, b[got:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return got, err
		}
		if n == 0 {
			break
		}
		got += n
	}
	return got, nil
}

// unchangedFd is unchanged for a raw descriptor: the file still has the
// size and time it was offered with.
func unchangedFd(fd int, e event.Entry, name string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("checking %s: %w", name, &fs.PathError{Op: "stat", Path: name, Err: err})
	}
	if st.Size != e.Size || !time.Unix(st.Mtim.Unix()).Equal(e.ModTime) {
		return fmt.Errorf("%s was modified: %w", name, transfer.ErrSourceChanged)
	}
	return nil
}

// openRaw opens name for reading as openFile does, and returns the
// descriptor itself.
func (d diskDir) openRaw(name string) (int, error) {
	if !fs.ValidPath(name) {
		return -1, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	full := filepath.Join(d.dir, name)
	for {
		fd, err := unix.Open(full, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return fd, nil
	}
}
