package send

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/internal/spare"
	"github.com/ferry-project/ferry/core/transfer"
	"golang.org/x/sys/unix"
)

// addDiskFolder is addFolder's walk for a folder on this device's disk:
// the same entries in the same order as fs.WalkDir over os.DirFS, with
// the same errors, in fewer and shorter calls. Each folder is opened
// once, relative to its parent's descriptor, and listed; each entry
// that is sent is then stated once relative to it (fstatat), where
// fs.WalkDir's DirEntry.Info makes an lstat that walks the whole path
// from the root, a cost per file. handled is false when root is not on
// the disk: addFolder walks it with fs.WalkDir.
//
// The walk runs on two goroutines (diskWalk), since nothing else runs
// on either end before the manifest is sent; when it stops at the
// entry limit on both at once it is walked again on one, which stops
// exactly where the limit is reached.
func (m *manifest) addDiskFolder(root itemRoot) (handled bool, err error) {
	d, ok := root.fsys.(diskDir)
	if !ok || !fs.ValidPath(root.path) || root.path == "." {
		return false, nil
	}
	n := len(m.entries)
	err = m.walkDiskItem(root, d, 1)
	if errors.Is(err, errWalkStopped) {
		m.entries, m.srcs = m.entries[:n], m.srcs[:n]
		err = m.walkDiskItem(root, d, 0)
	}
	return true, err
}

// walkDiskItem adds the folder item root and what it holds, walked with
// helpers goroutines besides the caller's (0 or 1).
func (m *manifest) walkDiskItem(root itemRoot, d diskDir, helpers int) error {
	// The item itself is followed when it is a link, as fs.Stat follows
	// it: the person named it.
	fd, err := openDir(unix.AT_FDCWD, filepath.Join(d.dir, root.path))
	if err != nil {
		return &fs.PathError{Op: "open", Path: root.path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return &fs.PathError{Op: "stat", Path: root.path, Err: err}
	}
	if err := m.add(dirEntry(root.base, &st), source{}); err != nil {
		unix.Close(fd)
		return err
	}
	w := &diskWalk{root: root, d: d, spare: spare.New(helpers), asIs: root.base == root.path, prefix: d.dir}
	// d.dir is clean (filepath.Abs) and ends in a separator
	// (filepath.Split), so prefix+p is filepath.Join(d.dir, p).
	if !strings.HasSuffix(w.prefix, "/") {
		w.prefix += "/"
	}
	// One goroutine alone is stopped exactly at the limit by m.add; two
	// stop when they have found more than it between them, an entry or
	// two past it at most, and the walk is repeated on one (errWalkStopped).
	w.left.Store(int64(transfer.MaxEntries - len(m.entries)))
	w.stop = errTooMany
	if helpers > 0 {
		w.stop = errWalkStopped
	}
	var top walked
	top.err = w.walk(&top, fd, root.path, root.base, 1)
	w.spare.Wait()
	// The manifest grows once, to what the walk found: grown by appends
	// as the lists are spliced in, it would hold its old and new arrays
	// besides the lists.
	n := min(top.count(), transfer.MaxEntries-len(m.entries))
	m.entries, m.srcs = slices.Grow(m.entries, n), slices.Grow(m.srcs, n)
	return m.splice(&top)
}

// errWalkStopped is a walk on two goroutines stopped by the entry
// limit: where the limit falls in the manifest's order is known only by
// walking on one.
var errWalkStopped = errors.New("the walk found more entries than a transfer holds")

// diskWalk is one folder item's walk on the disk. The goroutine that
// calls walk walks the tree in the manifest's order; a folder it meets,
// or the second half of a long folder's listing, while the helper is
// idle is walked by the helper instead, into a walked of its own, and
// spliced in at its place when both are done (splice). So the manifest is the same, entry for entry and error for
// error, as one goroutine's: only who stated each entry differs.
// addDiskFolder owns the helper's goroutine and waits for it.
type diskWalk struct {
	root   itemRoot
	d      diskDir
	spare  *spare.Goroutines // the helper
	left   atomic.Int64      // entries the transfer may still hold
	stop   error             // what a goroutine stops with when left runs out
	prefix string            // d.dir, ending in a separator
	asIs   bool              // the item is sent under its own name: each entry's path is its path in d
}

// walked is what one goroutine found under a folder, in the manifest's
// order: entries and their sources, the folders the helper walked
// meanwhile (each goes in before entries[at]), and the error the walk
// stopped at, after the last of them.
type walked struct {
	entries []event.Entry
	srcs    []source
	subs    []handed
	err     error
}

type handed struct {
	at int
	w  *walked
}

// count is how many entries w and the lists handed in it hold.
func (w *walked) count() int {
	n := len(w.entries)
	for _, h := range w.subs {
		n += h.w.count()
	}
	return n
}

func (w *diskWalk) add(out *walked, e event.Entry, s source) error {
	if w.left.Add(-1) < 0 {
		return w.stop
	}
	out.entries = append(out.entries, e)
	out.srcs = append(out.srcs, s)
	return nil
}

// splice appends what a walk found to the manifest, in its order,
// through the same limit as add, and returns the error the walk stopped
// at, if the limit did not come first.
func (m *manifest) splice(w *walked) error {
	from := 0
	for _, h := range w.subs {
		if err := m.addAll(w.entries[from:h.at], w.srcs[from:h.at]); err != nil {
			return err
		}
		from = h.at
		if err := m.splice(h.w); err != nil {
			return err
		}
		h.w.entries, h.w.srcs = nil, nil // copied: the collector may have them
	}
	if err := m.addAll(w.entries[from:], w.srcs[from:]); err != nil {
		return err
	}
	return w.err
}

// addAll is add for each of es in turn.
func (m *manifest) addAll(es []event.Entry, srcs []source) error {
	room := transfer.MaxEntries - len(m.entries)
	if len(es) <= room {
		m.entries = append(m.entries, es...)
		m.srcs = append(m.srcs, srcs...)
		return nil
	}
	m.entries = append(m.entries, es[:room]...)
	m.srcs = append(m.srcs, srcs[:room]...)
	return errTooMany
}

// walk adds to out what the folder open at fd holds (p in root's file
// system, sent as name, held levels are open above it, itself
// included), folders before what they hold, in lexical order, leaving
// out links and special files; it closes fd.
func (w *diskWalk) walk(out *walked, fd int, p, name string, held int) error {
	d := w.d
	// The full path, as os.ReadDir has it: where the file system gives
	// no entry's type, ReadDir lstats the entry by it.
	f := os.NewFile(uintptr(fd), filepath.Join(d.dir, p))
	defer f.Close()
	list, err := f.ReadDir(-1)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Path = p // as os.DirFS's ReadDir names it
		}
		return err
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	at, sub := fd, held+1
	if held >= maxHeld {
		// Deeper than the folders held: what is below is stated and
		// opened by its whole path, as os.DirFS does, and this folder
		// is not held while it is walked.
		at, sub = unix.AT_FDCWD, held
		f.Close()
	}
	// A long listing is split when the helper is idle: it walks the
	// second half, with a descriptor of its own for the folder, and
	// that half goes in after the first, once the first is done.
	half := len(list)
	var tail *walked
	if w.spare.ClaimSplit(len(list)) {
		tfd := at
		var terr error
		if at != unix.AT_FDCWD {
			tfd, terr = unix.FcntlInt(uintptr(at), unix.F_DUPFD_CLOEXEC, 0)
		}
		if terr != nil {
			w.spare.Release()
		} else {
			half = len(list) / 2
			tail = &walked{}
			w.spare.Go(func() {
				tail.err = w.entries(tail, tfd, list[half:], p, name, sub)
				if tfd != unix.AT_FDCWD {
					unix.Close(tfd)
				}
			})
		}
	}
	if err := w.entries(out, at, list[:half], p, name, sub); err != nil {
		return err
	}
	if tail != nil {
		out.subs = append(out.subs, handed{at: len(out.entries), w: tail})
	}
	return nil
}

// entries adds to out the entries of list, sorted, from the folder at
// (p, sent as name; AT_FDCWD: by whole path), and walks the folders
// among them, held levels open above each.
func (w *diskWalk) entries(out *walked, at int, list []fs.DirEntry, p, name string, sub int) error {
	for _, de := range list {
		if !de.IsDir() && !de.Type().IsRegular() {
			continue
		}
		base := de.Name()
		// One string per entry: its whole path, which errors call it
		// (root.source's), holds its path in the file system and, when
		// the item is sent under its own name, the path it is sent as.
		full := w.prefix + p + "/" + base
		cp := full[len(w.prefix):]
		rel := base // to at
		if at == unix.AT_FDCWD {
			rel = full
		}
		var st unix.Stat_t
		if err := fstatat(at, rel, &st); err != nil {
			return &fs.PathError{Op: "lstat", Path: full, Err: err}
		}
		cname := cp
		if !w.asIs {
			cname = name + "/" + base
		}
		if !de.IsDir() {
			e := event.Entry{Path: cname, Kind: event.KindFile, Size: st.Size, Mode: fs.FileMode(st.Mode & 0o777), ModTime: time.Unix(st.Mtim.Unix())}
			if err := w.add(out, e, source{fsys: w.root.fsys, path: cp, shown: full}); err != nil {
				return err
			}
			continue
		}
		if err := w.add(out, dirEntry(cname, &st), source{}); err != nil {
			return err
		}
		subfd, err := openDir(at, rel)
		if err != nil {
			return &fs.PathError{Op: "open", Path: cp, Err: err}
		}
		if w.spare.Claim() {
			// The helper is idle: it walks this folder while this
			// goroutine goes on with the next. Its own descriptors
			// are its own: each goroutine holds at most maxHeld.
			h := &walked{}
			out.subs = append(out.subs, handed{at: len(out.entries), w: h})
			w.spare.Go(func() { h.err = w.walk(h, subfd, cp, cname, sub) })
			continue
		}
		if err := w.walk(out, subfd, cp, cname, sub); err != nil {
			return err
		}
	}
	return nil
}

func dirEntry(name string, st *unix.Stat_t) event.Entry {
	return event.Entry{Path: name, Kind: event.KindDir, Mode: fs.FileMode(st.Mode & 0o777), ModTime: time.Unix(st.Mtim.Unix())}
}

// fstatat is lstat of name in the folder open at fd.
func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
