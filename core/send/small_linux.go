package send

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
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
	fd, err := s.dirs.open(d, src.path)
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
	return sameAsOffered(st.Size, time.Unix(st.Mtim.Unix()), e, name)
}

// maxHeld is the most folder descriptors a send holds at once, walking
// or sending (one a level of the path): deeper files and folders are
// opened by their whole path, as before, so a tree thousands of levels
// deep does not run a process with a low limit out of descriptors.
const maxHeld = 64

// folders keeps open the folders the last file was opened in, from
// the item's parent folder down, so that the next file is opened by its
// base name relative to its folder (openat), not by a path walked from
// the root each time. Files come in the manifest's order, a pre-order
// walk, so each folder is opened once and closed when the walk has left
// it: a transfer holds at most one descriptor per level of the deepest
// path. A folder's descriptor is that folder for as long as it is held,
// as GNU tar's are: a file that vanished is not found, as before.
type folders struct {
	root  string   // the diskDir's folder, "" when nothing is open
	names []string // the folders open below root, outermost first
	fds   []int    // root's descriptor, then one per name
}

// open opens the file at p, a valid io/fs path under d's folder (it is
// the manifest's), for reading; links are followed as os.Open follows
// them. An error is worded as os.DirFS's Open words it.
func (fo *folders) open(d diskDir, p string) (int, error) {
	dir, base := path.Split(p)
	var at int
	var err error
	if strings.Count(dir, "/") > maxHeld {
		// Deeper than the folders held: by the whole path, as before.
		at, base = unix.AT_FDCWD, filepath.Join(d.dir, p)
	} else {
		at, err = fo.enter(d.dir, dir)
	}
	if err == nil {
		var fd int
		for {
			fd, err = unix.Openat(at, base, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != unix.EINTR {
				break
			}
		}
		if err == nil {
			return fd, nil
		}
	}
	return -1, &fs.PathError{Op: "open", Path: p, Err: err}
}

// enter makes dir (slash-separated, ending in a slash, or empty: the
// root itself) under root the innermost folder open, keeping what it
// shares with the one open before, and returns its descriptor.
func (fo *folders) enter(root, dir string) (int, error) {
	if fo.root != root {
		fo.close()
		fd, err := openBase(unix.AT_FDCWD, root)
		if err != nil {
			return -1, err
		}
		fo.root, fo.fds = root, append(fo.fds, fd)
	}
	k := 0 // names kept
	for rest := dir; rest != ""; k++ {
		i := strings.IndexByte(rest, '/')
		name := rest[:i]
		rest = rest[i+1:]
		if k < len(fo.names) && fo.names[k] == name {
			continue
		}
		fo.leave(k)
		fd, err := openBase(fo.fds[k], name)
		if err != nil {
			return -1, err
		}
		fo.names, fo.fds = append(fo.names, name), append(fo.fds, fd)
	}
	fo.leave(k)
	return fo.fds[k], nil
}

// leave closes the folders open below the first k names.
func (fo *folders) leave(k int) {
	for j := len(fo.names); j > k; j-- {
		unix.Close(fo.fds[j])
	}
	if k < len(fo.names) {
		fo.names, fo.fds = fo.names[:k], fo.fds[:k+1]
	}
}

// close closes every folder held.
func (fo *folders) close() {
	for _, fd := range fo.fds {
		unix.Close(fd)
	}
	fo.root, fo.names, fo.fds = "", fo.names[:0], fo.fds[:0]
}

// openDir opens the folder name, relative to the folder open at at, to
// list it.
func openDir(at int, name string) (int, error) { return openFolder(at, name, unix.O_RDONLY) }

// openBase opens the folder name, relative to the folder open at at, as
// a place to open files from, not to list: O_PATH, which needs no
// permission to read the folder (its parent, where a person's item
// lies, may be searchable only, as a home folder of mode 0711 is), only
// to search it, as opening a file by its whole path needs.
func openBase(at int, name string) (int, error) { return openFolder(at, name, unix.O_PATH) }

func openFolder(at int, name string, mode int) (int, error) {
	for {
		fd, err := unix.Openat(at, name, mode|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
