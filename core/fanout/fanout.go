// Package fanout lets several sessions that send the same files read
// them from disk once: each session reads through a view of its own (an
// fs.FS), and the views of one source share, per open file, a window of
// the chunks read most recently. It owns that window, the pacing that
// keeps sessions of about the same speed in step, and the rule that
// a slow, stalled or dead session costs the others a bounded delay,
// never a stall. core/transfer's SendMany is its user.
//
// # How
//
// Every item of a SendMany becomes, in each session, a view of one
// shared source: per open file a window of the
// chunks most recently read from disk (core/transfer's ManyConfig.Window, default 4 MiB,
// shared by every open file; beyond it at most one chunk per open file).
// The session at the window's end reads the next chunk from disk; the
// others copy it from memory. When the window is full and a session
// still needs its oldest chunk (or has not opened the file yet), the
// session at the end waits for it, 100 ms at a time; but a session may
// hold the others back by at most 2 s plus a tenth of the time since the
// send began, all waits counted. Past that it is loose: nobody waits for
// it again, and once behind the window it reads on its own from the
// source (an own handle, ReadAt where the file has it) until it catches
// up, if it does. Those bytes are counted as read again for that session
// alone (Again, ManyResult.ReadAgain); Read (ManyStats.DiskRead) counts every byte
// read. So receivers of about the same speed stay in step and the file
// is read once, and a slow, stalled or dead receiver costs the others a
// bounded delay, never a stall (a dead one costs nothing once its session
// has failed). The alternative, a window that never waits, read a file
// about three times for four receivers on loopback, where sessions drift
// apart by more than any window of a few MiB.
//
// A file all sessions closed stays open, with its chunks, for the
// sessions that have not opened it yet (at most 64 such files; their
// chunks go back to the window first when an open file needs them), so
// a session a file behind the others still shares the read. Hashes for a
// receiver's haves and the prefix of a resume are read through the same
// views.
package fanout

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"
)

// A Hub lets several sessions of one SendMany read the same files
// while the disk is read once. Each session reads through its own view
// (an fs.FS); the views of one source share, per open file, a window of
// the chunks most recently read from disk. The session that reaches the
// end of the window reads the next chunk from disk into it; the others
// copy it from memory.
//
// When the window is full, its oldest chunk must go before the next is
// read. If a session still needs that chunk (it is reading it, or has
// not opened the file yet), the reader waits for it, up to maxWait at a
// time, but a session may hold the others back by at most patience plus
// share of the time since the send began, all waits counted. Past that
// it is loose: nobody waits for it again, and when it falls behind the
// window it reads on its own (counted as read again, for it), until it
// catches up with the window, if it does. So receivers of about the same
// speed stay in step and the file is read once, and a slow, stalled or
// dead one costs the others a bounded delay, never a stall.
//
// Memory: at most window bytes of chunks in all, shared by every open
// file, plus one chunk per open file beyond that (a file always gets its
// first chunk, so that no file waits for another's window to free).
type Hub struct {
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

	sess     []*fanSession
	start    time.Time
	patience time.Duration // how long a session may hold the others back
	share    float64       // ... plus this share of the time since start
}

// fanSession is one session's standing in a fanout.
type fanSession struct {
	again atomic.Int64 // bytes read from the sources for this session alone
	held  atomic.Int64 // nanoseconds others waited for it
	loose atomic.Bool  // nobody waits for it any more
	gone  atomic.Bool  // its transfer ended
}

// Waiting for a session that still needs the window's oldest chunk.
const (
	maxWait         = 100 * time.Millisecond // one wait, before looking again
	defaultPatience = 2 * time.Second
	defaultShare    = 0.1
)

type fanKey struct {
	src  int // which source (one per root)
	name string
}

// maxParked bounds the files kept open after every session closed them.
const maxParked = 64

// New is a hub for sessions sessions that read chunks of chunk bytes,
// sharing a window of window bytes.
func New(window, chunk, sessions int) *Hub {
	h := &Hub{chunk: chunk, free: max(window/chunk, 1), sessions: sessions,
		open: make(map[fanKey]*sharedFile), upto: make(map[fanKey]int64),
		start: time.Now(), patience: defaultPatience, share: defaultShare}
	for range sessions {
		h.sess = append(h.sess, &fanSession{})
	}
	return h
}

// view is session i's view of source src.
func (h *Hub) view(i, src int, under fs.FS) fanView {
	return fanView{hub: h, src: src, under: under, s: h.sess[i]}
}

// View is session i's view of source src: the k-th source is the same
// files in every session, read through under.
func (h *Hub) View(i, src int, under fs.FS) fs.FS { return h.view(i, src, under) }

// Leave says session i's transfer ended: nobody waits for it.
func (h *Hub) Leave(i int) { h.sess[i].gone.Store(true) }

// Again is how many bytes were read from the sources for session i
// alone: it fell behind the window, or opened a file after the others
// were past it.
func (h *Hub) Again(i int) int64 { return h.sess[i].again.Load() }

// Read is every byte read from the sources through the hub, shared or
// not.
func (h *Hub) Read() int64 { return h.read.Load() }

// allowance is how much longer s may hold the others back.
func (h *Hub) allowance(s *fanSession) time.Duration {
	budget := h.patience + time.Duration(h.share*float64(time.Since(h.start)))
	return budget - time.Duration(s.held.Load())
}

// spare says whether a chunk can be had without dropping one of the
// asking file's own.
func (h *Hub) spare() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.free > 0 || len(h.parked) > 0
}

// fanView is one session's view of one source. Files opened through it
// share their disk reads with the other sessions' views of that source.
type fanView struct {
	hub   *Hub
	src   int
	under fs.FS
	s     *fanSession
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
	hub   *Hub
	key   fanKey
	f     fs.File // the source, opened once and read in order
	size  int64   // as opened: reading stops there (a sender checks for changes itself)
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
	// at is where each session that read this file reads next; done has
	// the sessions that closed it. A session in neither has not opened it.
	at      map[*fanSession]int64
	done    map[*fanSession]bool
	waiters int // sessions waiting in waitFor
}

func (h *Hub) acquire(k fanKey, under fs.FS) (*sharedFile, error) {
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
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	sf := &sharedFile{hub: h, key: k, f: f, size: fi.Size(), refs: 1, opens: 1, seen: h.upto[k],
		at: map[*fanSession]int64{}, done: map[*fanSession]bool{}}
	sf.cond = sync.NewCond(&sf.mu)
	h.open[k] = sf
	return sf, nil
}

// release drops one session's hold on sf. The last one parks it, unless
// every session has opened it already.
func (h *Hub) release(sf *sharedFile) error {
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

func (h *Hub) unpark(sf *sharedFile) {
	for i, p := range h.parked {
		if p == sf {
			h.parked = append(h.parked[:i], h.parked[i+1:]...)
			return
		}
	}
}

// drop frees a file nobody holds, with h.mu held: its chunks go back to
// the window, its source is closed.
func (h *Hub) drop(sf *sharedFile) error {
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
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, sf := range h.parked {
		h.drop(sf)
	}
	h.parked = nil
}

// grow asks for one more chunk within the window; nil means the window
// is spent.
func (h *Hub) grow() []byte {
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
func (sf *sharedFile) readAt(p []byte, off int64, s *fanSession) (n int, behind bool, err error) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	delete(sf.done, s)
	for {
		switch {
		case off < sf.base || off > sf.head:
			delete(sf.at, s)
			return 0, true, nil
		case off < sf.head:
			n := sf.copyOut(p, off)
			sf.at[s] = off + int64(n)
			if sf.waiters > 0 {
				sf.cond.Broadcast()
			}
			return n, false, nil
		case sf.err != nil:
			return 0, false, sf.err
		case sf.filling:
			sf.cond.Wait()
		case sf.head >= sf.size:
			sf.err = io.EOF
		default:
			if b := sf.blocker(s); b != nil {
				sf.waitFor(b)
				continue
			}
			sf.fill(s)
		}
	}
}

// blocker is a session, other than s, that still needs the window's
// oldest chunk when the next fill would drop it; nil when none does.
func (sf *sharedFile) blocker(s *fanSession) *fanSession {
	if len(sf.chunks) == 0 || sf.hub.spare() {
		return nil
	}
	end := sf.base + int64(sf.hub.chunk)
	for _, o := range sf.hub.sess {
		if o == s || o.loose.Load() || o.gone.Load() || sf.done[o] {
			continue
		}
		if at, ok := sf.at[o]; (ok && at >= sf.base && at < end) || (!ok && sf.base == 0) {
			return o
		}
	}
	return nil
}

// waitFor waits, with sf.mu held, until b may have moved on (any read or
// close broadcasts), for at most maxWait and b's allowance, which the
// wait is charged to. A session out of allowance is made loose instead.
func (sf *sharedFile) waitFor(b *fanSession) {
	limit := sf.hub.allowance(b)
	if limit <= 0 {
		b.loose.Store(true)
		return
	}
	t := time.AfterFunc(min(limit, maxWait), func() {
		sf.mu.Lock()
		sf.cond.Broadcast()
		sf.mu.Unlock()
	})
	start := time.Now()
	sf.waiters++
	sf.cond.Wait()
	sf.waiters--
	t.Stop()
	b.held.Add(int64(time.Since(start)))
}

// closedBy notes that s closed the file: nobody waits for it here.
func (sf *sharedFile) closedBy(s *fanSession) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	delete(sf.at, s)
	sf.done[s] = true
	if sf.waiters > 0 {
		sf.cond.Broadcast()
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
func (sf *sharedFile) fill(s *fanSession) {
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
	if off < sf.seen {
		s.again.Add(min(int64(n), sf.seen-off))
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
		m, behind, err := f.sf.readAt(p[n:], off+int64(n), f.view.s)
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
	f.view.s.again.Add(int64(n))
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
	f.sf.closedBy(f.view.s)
	err := f.view.hub.release(f.sf)
	if f.own != nil {
		if cerr := f.own.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
