package transfer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
)

// A fanout lets several sessions of one SendMany read the same files
// while the disk is read once. Each session reads through its own view
// (an fs.FS); the views of one source share, per open file, a window of
// the chunks most recently read from disk. The session that reaches the
// end of the window reads the next chunk from disk into it; the others
// copy it from memory. The window never waits for anyone: when a chunk
// is needed and the window is full, its oldest chunk is dropped, and a
// session still behind it reads the rest of the file on its own (counted
// as read again, for it). A session that catches up reads from the
// window again.
//
// Memory: at most window bytes of chunks in all, shared by every open
// file, plus one chunk per open file beyond that (a file always gets its
// first chunk, so that no file waits for another's window to free).
type fanout struct {
	chunk int // bytes a chunk holds
	mu    sync.Mutex
	free  int      // chunks that may still be allocated within the window
	pool  [][]byte // chunks returned by closed files, for reuse
	open  map[fanKey]*sharedFile
	// parked are files every session closed, oldest first, kept (with
	// their chunks and their source open) for sessions that have not
	// opened them yet, until their chunks are needed or maxParked others
	// are parked after them.
	parked   []*sharedFile
	sessions int // how many sessions read through this fanout
	// upto is, per file ever opened, how far its shared reads reached,
	// so that a shared read past a closed one's counts as read again.
	upto map[fanKey]int64
	// read counts every byte read from the sources, shared or not.
	read atomic.Int64
}

type fanKey struct {
	src  int // which source (one per root)
	name string
}

// maxParked bounds the files kept open after every session closed them.
const maxParked = 64

func newFanout(window, chunk, sessions int) *fanout {
	return &fanout{chunk: chunk, free: max(window/chunk, 1), sessions: sessions,
		open: make(map[fanKey]*sharedFile), upto: make(map[fanKey]int64)}
}

// fanView is one session's view of one source. Files opened through it
// share their disk reads with the other sessions' views of that source.
type fanView struct {
	hub   *fanout
	src   int
	under fs.FS
	// again counts the bytes read from the source for this session alone.
	again *atomic.Int64
}

var (
	_ fs.FS        = fanView{}
	_ fs.StatFS    = fanView{}
	_ fs.ReadDirFS = fanView{}
)

func (v fanView) Stat(name string) (fs.FileInfo, error) { return fs.Stat(v.under, name) }

func (v fanView) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(v.under, name) }

// Open opens a regular file as a shared reader and anything else (a
// folder) straight from the source.
func (v fanView) Open(name string) (fs.File, error) {
	fi, err := fs.Stat(v.under, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return v.under.Open(name)
	}
	sf, err := v.hub.acquire(fanKey{v.src, name}, v.under)
	if err != nil {
		return nil, err
	}
	return &fanFile{sf: sf, view: v, name: name}, nil
}

// sharedFile is one open file's window: chunks holding [base, head) of
// the file, the oldest first.
type sharedFile struct {
	hub   *fanout
	key   fanKey
	f     fs.File // the source, opened once and read in order
	refs  int     // sessions holding it open, under hub.mu
	opens int     // sessions that opened it, under hub.mu

	mu      sync.Mutex
	cond    *sync.Cond
	chunks  [][]byte // chunks[i] holds the bytes at base+i*chunk
	extra   int      // chunks taken beyond the window (at most one)
	base    int64    // file offset of the oldest chunk
	head    int64    // file offset just past the newest byte
	filling bool     // a session is reading the chunk at head from disk
	err     error    // sticky: the source failed or ended (io.EOF) at head
	seen    int64    // how far earlier shared reads of this file reached
}

func (h *fanout) acquire(k fanKey, under fs.FS) (*sharedFile, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sf := h.open[k]; sf != nil {
		if sf.refs == 0 {
			h.unpark(sf)
		}
		sf.refs++
		sf.opens++
		return sf, nil
	}
	f, err := under.Open(k.name)
	if err != nil {
		return nil, err
	}
	sf := &sharedFile{hub: h, key: k, f: f, refs: 1, opens: 1, seen: h.upto[k]}
	sf.cond = sync.NewCond(&sf.mu)
	h.open[k] = sf
	return sf, nil
}

// release drops one session's hold on sf. The last one parks it, unless
// every session has opened it already.
func (h *fanout) release(sf *sharedFile) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sf.refs--; sf.refs > 0 {
		return nil
	}
	if sf.opens < h.sessions {
		h.parked = append(h.parked, sf)
		if len(h.parked) <= maxParked {
			return nil
		}
		sf = h.parked[0]
		h.parked = h.parked[1:]
	}
	return h.drop(sf)
}

func (h *fanout) unpark(sf *sharedFile) {
	for i, p := range h.parked {
		if p == sf {
			h.parked = append(h.parked[:i], h.parked[i+1:]...)
			return
		}
	}
}

// drop frees a file nobody holds, with h.mu held: its chunks go back to
// the window, its source is closed.
func (h *fanout) drop(sf *sharedFile) error {
	delete(h.open, sf.key)
	sf.mu.Lock()
	h.upto[sf.key] = max(h.upto[sf.key], sf.head)
	h.pool = append(h.pool, sf.chunks...)
	h.free += len(sf.chunks) - sf.extra
	sf.chunks = nil
	sf.mu.Unlock()
	return sf.f.Close()
}

// close drops every parked file, when the sessions are over.
func (h *fanout) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, sf := range h.parked {
		h.drop(sf)
	}
	h.parked = nil
}

// grow asks for one more chunk within the window; nil means the window
// is spent.
func (h *fanout) grow() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.free <= 0 && len(h.parked) > 0 {
		h.drop(h.parked[0])
		h.parked = h.parked[1:]
	}
	if h.free <= 0 {
		return nil
	}
	h.free--
	if n := len(h.pool); n > 0 {
		c := h.pool[n-1]
		h.pool = h.pool[:n-1]
		return c
	}
	return make([]byte, h.chunk)
}

// readAt copies into p the file's bytes at off from the window, reading
// the next chunk from disk when off is the window's end. It reports
// behind when off is no longer (or not yet) in the window: the caller
// reads on its own.
func (sf *sharedFile) readAt(p []byte, off int64, again *atomic.Int64) (n int, behind bool, err error) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	for {
		switch {
		case off < sf.base || off > sf.head:
			return 0, true, nil
		case off < sf.head:
			return sf.copyOut(p, off), false, nil
		case sf.err != nil:
			return 0, false, sf.err
		case sf.filling:
			sf.cond.Wait()
		default:
			sf.fill(again)
		}
	}
}

// copyOut copies from the window, which holds off (base <= off < head).
func (sf *sharedFile) copyOut(p []byte, off int64) int {
	size := int64(sf.hub.chunk)
	n := 0
	for n < len(p) && off < sf.head {
		c := sf.chunks[(off-sf.base)/size]
		in := off % size
		end := min(size, sf.head-(off-in))
		m := copy(p[n:], c[in:end])
		n += m
		off += int64(m)
	}
	return n
}

// fill reads the chunk at head from the source, with sf.mu held on entry
// and exit but not during the read: sessions reading what the window
// already holds go on meanwhile, those waiting for this chunk wait. A
// chunk comes from the window's spare ones, else is the file's oldest
// (which a session still reading it then reads on its own), else, for a
// file that has none, is one beyond the window.
func (sf *sharedFile) fill(again *atomic.Int64) {
	c := sf.hub.grow()
	switch {
	case c != nil:
	case len(sf.chunks) > 0:
		c = sf.chunks[0]
		sf.chunks = sf.chunks[1:]
		sf.base += int64(sf.hub.chunk)
	default:
		c = make([]byte, sf.hub.chunk)
		sf.extra++
	}
	sf.filling = true
	off := sf.head
	sf.mu.Unlock()
	n, err := io.ReadFull(sf.f, c)
	sf.mu.Lock()
	sf.filling = false
	sf.cond.Broadcast()
	sf.hub.read.Add(int64(n))
	if again != nil && off < sf.seen {
		again.Add(min(int64(n), sf.seen-off))
	}
	if len(sf.chunks) == 0 {
		sf.base = off
	}
	sf.chunks = append(sf.chunks, c)
	sf.head += int64(n)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		sf.err = io.EOF
	default:
		sf.err = fmt.Errorf("reading %s: %w", sf.key.name, err)
	}
}

// fanFile is one session's open file: a position in the shared file, and
// the session's own handle once it fell behind the window.
type fanFile struct {
	sf     *sharedFile
	view   fanView
	name   string
	pos    int64
	own    fs.File // opened when behind, positioned at ownAt
	ownAt  int64
	closed bool
}

var (
	_ io.ReaderAt = (*fanFile)(nil)
	_ io.Seeker   = (*fanFile)(nil)
)

// Stat asks the source, so that a sender's check for a file that changed
// sees the file as it is now.
func (f *fanFile) Stat() (fs.FileInfo, error) { return fs.Stat(f.view.under, f.name) }

func (f *fanFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if n > 0 && errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// ReadAt reads from the window where it holds off, else on its own.
// Like os.File's, it fills p unless the file ends or fails first.
func (f *fanFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, fs.ErrClosed
	}
	n := 0
	for n < len(p) {
		m, behind, err := f.sf.readAt(p[n:], off+int64(n), f.view.again)
		if behind {
			m, err = f.readOwn(p[n:], off+int64(n))
		}
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readOwn reads from this session's own handle of the file, opened the
// first time it is needed.
func (f *fanFile) readOwn(p []byte, off int64) (int, error) {
	if f.own == nil {
		own, err := f.view.under.Open(f.name)
		if err != nil {
			return 0, err
		}
		f.own, f.ownAt = own, 0
	}
	if ra, ok := f.own.(io.ReaderAt); ok {
		n, err := ra.ReadAt(p, off)
		f.count(n)
		return n, err
	}
	if off < f.ownAt {
		sk, ok := f.own.(io.Seeker)
		if !ok {
			return 0, fmt.Errorf("reading %s again: the source can neither seek nor read at an offset", f.name)
		}
		if _, err := sk.Seek(off, io.SeekStart); err != nil {
			return 0, err
		}
		f.ownAt = off
	}
	for f.ownAt < off { // a forward-only source: read up to off
		var skip [4096]byte
		m, err := f.own.Read(skip[:min(int64(len(skip)), off-f.ownAt)])
		f.count(m)
		f.ownAt += int64(m)
		if err != nil {
			return 0, err
		}
	}
	n, err := f.own.Read(p)
	f.count(n)
	f.ownAt += int64(n)
	return n, err
}

func (f *fanFile) count(n int) {
	f.view.again.Add(int64(n))
	f.view.hub.read.Add(int64(n))
}

func (f *fanFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += f.pos
	case io.SeekEnd:
		fi, err := f.Stat()
		if err != nil {
			return 0, err
		}
		offset += fi.Size()
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("seek: negative position")
	}
	f.pos = offset
	return offset, nil
}

func (f *fanFile) Close() error {
	if f.closed {
		return fs.ErrClosed
	}
	f.closed = true
	err := f.view.hub.release(f.sf)
	if f.own != nil {
		if cerr := f.own.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
