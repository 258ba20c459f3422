//go:build linux

package main

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"unsafe"

	"github.com/ferry-project/ferry/core/filehash"
	"golang.org/x/sys/unix"
)

// The floor is the small figure's measure of what a folder of small
// files must cost whatever the program: floor-send and floor-recv do
// the work the issue keeps (every file walked, read, hashed with
// BLAKE3, every byte sealed with AES-256-GCM, every file placed without
// a name until it is verified, never over an existing name and without
// following a link) and nothing else: no handshake, no offer, no
// accept, no resume, no confirmations, no events, no history. Its
// receiver places on a second goroutine, as Ferry's does (-placer). With
// -crypto=false it drops the hash and the seal and keeps the placing:
// what Go costs against tar for the same calls. So Ferry ÷ floor is
// what Ferry's protocol and bookkeeping cost, and floor ÷ tar is what
// the mandated work costs in Go against tar. A bound found by one
// program, not a proof: a better floor would lower it.
//
// The stream is batches of up to floorBatch plaintext bytes, each sent
// as a 4-byte length and the batch, sealed when -crypto is set (AES-GCM
// with a fixed key and a counter nonce: a cost, not a secret). The
// batches carry one frame a file: a 2-byte name length, the name (its
// path under the folder, with slashes), 4 bytes of mode, 8 of
// modification time (Unix ns), 8 of size, the bytes, and with -crypto
// the 32-byte BLAKE3 hash. A zero length ends the stream; the receiver
// answers one byte once every file is placed.
const floorBatch = 256 << 10

func init() {
	children["floor-send"] = floorSendChild
	children["floor-recv"] = floorRecvChild
}

var floorKey [32]byte // all zeros: the floor measures the seal's cost, nothing is secret

func floorAEAD() cipher.AEAD {
	b, err := aes.NewCipher(floorKey[:])
	if err != nil {
		panic(err)
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return a
}

// floorSender batches frames onto the connection.
type floorSender struct {
	nc     *net.TCPConn
	aead   cipher.AEAD // nil without -crypto
	nonce  [12]byte
	seq    uint64
	batch  []byte // the batch's length, then its bytes, sealed in place
	hash   *filehash.Hasher
	buf    []byte // one file's bytes
	prefix string // the item's name, then a slash
}

func floorSendChild(args []string) childReport {
	fs := flag.NewFlagSet("floor-send", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	root := fs.String("path", "", "")
	crypto := fs.Bool("crypto", true, "hash and seal")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	nc, err := net.Dial("tcp", *addr)
	if err != nil {
		return fail("dialing: %v", err)
	}
	defer nc.Close()
	if err := floorSend(nc.(*net.TCPConn), *root, *crypto); err != nil {
		return fail("%v", err)
	}
	return childReport{}
}

// floorSend sends the folder at root on nc and waits for the receiver's
// answer.
func floorSend(nc *net.TCPConn, root string, crypto bool) error {
	s := &floorSender{nc: nc, batch: make([]byte, 4, 4+floorBatch+16), prefix: path.Base(root) + "/"}
	if crypto {
		s.aead, s.hash = floorAEAD(), filehash.New()
	}
	dfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", root, err)
	}
	err = s.folder(dfd, "")
	if err == nil {
		err = s.flush()
	}
	if err == nil {
		var end [4]byte
		_, err = nc.Write(end[:])
	}
	if err != nil {
		return fmt.Errorf("sending: %w", err)
	}
	nc.CloseWrite()
	var ack [1]byte
	if _, err := io.ReadFull(nc, ack[:]); err != nil {
		return fmt.Errorf("waiting for the acknowledgement: %w", err)
	}
	return nil
}

// folder sends the files under the open folder dfd, at rel under the
// item, in name order, a folder's files at its place in that order; it
// closes dfd. Links are left out, as Ferry leaves them.
func (s *floorSender) folder(dfd int, rel string) error {
	f := os.NewFile(uintptr(dfd), rel)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ELOOP) {
			continue
		}
		if err != nil {
			return fmt.Errorf("opening %s: %w", rel+name, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			err = s.folder(fd, rel+name+"/")
		case unix.S_IFREG:
			err = s.file(fd, rel+name, &st)
			unix.Close(fd)
		default:
			unix.Close(fd)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// file sends one file's frame: its header, its bytes, its hash.
func (s *floorSender) file(fd int, rel string, st *unix.Stat_t) error {
	if cap(s.buf) < int(st.Size) {
		s.buf = make([]byte, st.Size)
	}
	b := s.buf[:st.Size]
	for got := 0; got < len(b); {
		n, err := unix.Read(fd, b[got:])
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%s ended early", rel)
		}
		got += n
	}
	name := s.prefix + rel
	var hdr [22]byte
	binary.BigEndian.PutUint16(hdr[0:], uint16(len(name)))
	binary.BigEndian.PutUint32(hdr[2:], st.Mode&0o777)
	binary.BigEndian.PutUint64(hdr[6:], uint64(st.Mtim.Nano()))
	binary.BigEndian.PutUint64(hdr[14:], uint64(st.Size))
	if err := s.put(hdr[:2]); err != nil {
		return err
	}
	if err := s.put([]byte(name)); err != nil {
		return err
	}
	if err := s.put(hdr[2:]); err != nil {
		return err
	}
	if err := s.put(b); err != nil {
		return err
	}
	if s.hash != nil {
		s.hash.Reset()
		s.hash.Write(b)
		var sum [32]byte
		return s.put(s.hash.Sum(sum[:0]))
	}
	return nil
}

// put adds p to the batch, sending each batch that fills.
func (s *floorSender) put(p []byte) error {
	for len(p) > 0 {
		n := min(len(p), 4+floorBatch-len(s.batch))
		s.batch = append(s.batch, p[:n]...)
		p = p[n:]
		if len(s.batch) == 4+floorBatch {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush seals (with -crypto) and sends the batch, its length first, in
// one write.
func (s *floorSender) flush() error {
	if len(s.batch) == 4 {
		return nil
	}
	out := s.batch[4:]
	if s.aead != nil {
		binary.BigEndian.PutUint64(s.nonce[4:], s.seq)
		s.seq++
		out = s.aead.Seal(out[:0], s.nonce[:], out, nil)
	}
	binary.BigEndian.PutUint32(s.batch, uint32(len(out)))
	_, err := s.nc.Write(s.batch[:4+len(out)])
	s.batch = s.batch[:4]
	return err
}

// floorReceiver opens the batches and places the files.
type floorReceiver struct {
	r     io.Reader
	aead  cipher.AEAD
	nonce [12]byte
	seq   uint64
	in    []byte         // the sealed batch
	plain []byte         // what is left of the current batch
	dirs  map[string]int // open folders, by path under root
	hash  *filehash.Hasher
	done  bool
	// With -placer: verified files go to the placer's goroutine
	// (startPlacer); its first error comes back on placeErr.
	placer   chan floorJob
	placeErr chan error
}

func floorRecvChild(args []string) childReport {
	fs := flag.NewFlagSet("floor-recv", flag.ContinueOnError)
	dir := fs.String("dir", "", "")
	host := fs.String("listen", "127.0.0.1", "address to listen on")
	crypto := fs.Bool("crypto", true, "open and check the hashes")
	placer := fs.Bool("placer", true, "place files on a second goroutine")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	nc, err := acceptAnnounced(*host, os.Stdout)
	if err != nil {
		return fail("%v", err)
	}
	defer nc.Close()
	if err := floorRecv(nc, *dir, *crypto, *placer); err != nil {
		return fail("%v", err)
	}
	return childReport{}
}

// floorRecv receives the stream on nc into the folder dir, placing on
// a second goroutine with placer, and answers once every file is placed.
func floorRecv(nc net.Conn, dir string, crypto, placer bool) (err error) {
	root, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	r := &floorReceiver{r: nc, in: make([]byte, floorBatch+16),
		dirs: map[string]int{"": root}}
	defer r.close()
	if crypto {
		r.aead, r.hash = floorAEAD(), filehash.New()
	}
	wait := func() error { return nil }
	if placer {
		wait = r.startPlacer()
	}
	for err == nil {
		err = r.file()
	}
	if perr := wait(); err == io.EOF {
		err = perr
	}
	if err != nil {
		return fmt.Errorf("receiving: %w", err)
	}
	if _, err := nc.Write([]byte{1}); err != nil {
		return fmt.Errorf("acknowledging: %w", err)
	}
	return nil
}

// close closes the open folders.
func (r *floorReceiver) close() {
	for _, fd := range r.dirs {
		unix.Close(fd)
	}
}

// next reads and opens the next batch; io.EOF at the stream's end.
func (r *floorReceiver) next() error {
	if r.done {
		return io.EOF
	}
	var n [4]byte
	if _, err := io.ReadFull(r.r, n[:]); err != nil {
		return err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size == 0 {
		r.done = true
		return io.EOF
	}
	if size > uint32(len(r.in)) {
		return fmt.Errorf("a batch of %d bytes", size)
	}
	b := r.in[:size]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return err
	}
	if r.aead != nil {
		binary.BigEndian.PutUint64(r.nonce[4:], r.seq)
		r.seq++
		var err error
		if b, err = r.aead.Open(b[:0], r.nonce[:], b, nil); err != nil {
			return err
		}
	}
	r.plain = b
	return nil
}

// take returns the next n bytes of the stream or fewer, at the end of a
// batch; at most n, at least 1.
func (r *floorReceiver) take(n int) ([]byte, error) {
	for len(r.plain) == 0 {
		if err := r.next(); err != nil {
			return nil, err
		}
	}
	n = min(n, len(r.plain))
	b := r.plain[:n]
	r.plain = r.plain[n:]
	return b, nil
}

// takeFull copies the next len(b) bytes of the stream into b.
func (r *floorReceiver) takeFull(b []byte) error {
	for got := 0; got < len(b); {
		p, err := r.take(len(b) - got)
		if err != nil {
			if err == io.EOF && got > 0 {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		got += copy(b[got:], p)
	}
	return nil
}

// file receives and places one file: made without a name in its
// folder, written, checked, its time set, then linked under its name,
// which must not exist.
func (r *floorReceiver) file() error {
	var hdr [22]byte
	if err := r.takeFull(hdr[:2]); err != nil {
		return err
	}
	name := make([]byte, binary.BigEndian.Uint16(hdr[:2]))
	if err := r.takeFull(name); err != nil {
		return err
	}
	if err := r.takeFull(hdr[2:]); err != nil {
		return err
	}
	mode := binary.BigEndian.Uint32(hdr[2:])
	mtime := int64(binary.BigEndian.Uint64(hdr[6:]))
	size := int64(binary.BigEndian.Uint64(hdr[14:]))
	rel := string(name)
	if !validFloorPath(rel) {
		return fmt.Errorf("a name that is not a plain relative path: %q", rel)
	}
	dir, base := path.Split(rel)
	dfd, err := r.folder(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return err
	}
	fd, err := unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, mode&0o777)
	if err != nil {
		return fmt.Errorf("making %s: %w", rel, err)
	}
	placed := false
	defer func() {
		if !placed {
			unix.Close(fd)
		}
	}()
	if r.hash != nil {
		r.hash.Reset()
	}
	for left := size; left > 0; {
		p, err := r.take(int(min(left, floorBatch)))
		if err != nil {
			return err
		}
		if r.hash != nil {
			r.hash.Write(p)
		}
		for len(p) > 0 {
			n, err := unix.Write(fd, p)
			if err != nil {
				return fmt.Errorf("writing %s: %w", rel, err)
			}
			p = p[n:]
			left -= int64(n)
		}
	}
	if r.hash != nil {
		var want, got [32]byte
		if err := r.takeFull(want[:]); err != nil {
			return err
		}
		if r.hash.Sum(got[:0]); got != want {
			return fmt.Errorf("%s: the hash does not match", rel)
		}
	}
	placed = true
	if r.placer == nil {
		return place(floorJob{fd: fd, dfd: dfd, base: base, rel: rel, mtime: mtime})
	}
	select {
	case r.placer <- floorJob{fd: fd, dfd: dfd, base: base, rel: rel, mtime: mtime}:
		return nil
	case err := <-r.placeErr:
		unix.Close(fd)
		return err
	}
}

// floorJob is a verified file for the placer: its time, its name.
type floorJob struct {
	fd, dfd   int
	base, rel string
	mtime     int64
}

// place gives a verified file its time and links it under its name,
// then closes it.
func place(j floorJob) error {
	defer unix.Close(j.fd)
	// futimens(2): utimensat with no path, as core/place sets a time.
	ts := [2]unix.Timespec{unix.NsecToTimespec(j.mtime), unix.NsecToTimespec(j.mtime)}
	if _, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(j.fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0); e != 0 {
		return fmt.Errorf("setting the time of %s: %w", j.rel, e)
	}
	if err := unix.Linkat(j.fd, "", j.dfd, j.base, unix.AT_EMPTY_PATH); err != nil {
		return fmt.Errorf("placing %s: %w", j.rel, err)
	}
	return nil
}

// startPlacer places the files file hands it on a goroutine of its own,
// as Ferry's receiver does (core/receive's placer): the reading
// goroutine reads, opens, checks and writes; the placer sets the time,
// links and closes. wait returns its first error once it has placed
// every file handed to it.
func (r *floorReceiver) startPlacer() (wait func() error) {
	r.placer, r.placeErr = make(chan floorJob, 64), make(chan error, 1)
	done := make(chan struct{})
	var first error
	go func() {
		defer close(done)
		for j := range r.placer {
			if first != nil {
				unix.Close(j.fd)
				continue
			}
			if err := place(j); err != nil {
				first = err
				r.placeErr <- err
			}
		}
	}()
	return func() error {
		close(r.placer)
		<-done
		return first
	}
}

// folder returns the open folder at rel under the root, made if need
// be, each step opened without following a link.
func (r *floorReceiver) folder(rel string) (int, error) {
	if fd, ok := r.dirs[rel]; ok {
		return fd, nil
	}
	parent, base := path.Split(rel)
	pfd, err := r.folder(strings.TrimSuffix(parent, "/"))
	if err != nil {
		return -1, err
	}
	if err := unix.Mkdirat(pfd, base, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, fmt.Errorf("making %s: %w", rel, err)
	}
	fd, err := unix.Openat(pfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening %s: %w", rel, err)
	}
	r.dirs[rel] = fd
	return fd, nil
}

// validFloorPath: slash-separated, relative, no empty, "." or ".."
// element.
func validFloorPath(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == "" || e == "." || e == ".." {
			return false
		}
	}
	return true
}
