package history

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/internal/jsonfile"
	"github.com/ferry-project/ferry/core/platform"
)

// Errors a caller may branch on.
var (
	// ErrCorrupt: the history file cannot be read as written. A Store
	// never returns it: it sets such a file aside (see Aside).
	ErrCorrupt = errkind.New(errkind.HistoryFile, "history file is damaged")
	// ErrUnsupportedVersion: the history file was written by a newer
	// ferry; it is left as it is.
	ErrUnsupportedVersion = errkind.New(errkind.HistoryFile, "unsupported history file version")
)

// fileName is the history file's name in the config folder.
const fileName = "history.json"

// DefaultPath is this user's history file: history.json in
// core/platform's ConfigDir, beside the static key and trusted.json.
func DefaultPath() (string, error) { return jsonfile.DefaultPath(fileName) }

// Store is the history file at one path. It keeps none of the file's
// contents: every call reads the file (and every change rewrites it
// under the lock), so several Stores, goroutines and processes may
// share a path. What it keeps is which bytes it last found whole or
// wrote (known), to spare a change decoding them again.
type Store struct {
	path string
	now  func() time.Time // names a damaged file set aside

	// known is the file as this Store last found it whole and in the
	// form encode writes (Warm), or as it last wrote it: a change that
	// reads the same bytes under the lock takes their records line by
	// line, without decoding and encoding each one again, which at 500
	// records is most of what an Add costs. It caches a check, not the
	// contents: every call still reads the file.
	seed  maphash.Seed
	mu    sync.Mutex
	known fileSum
}

// fileSum identifies a file's bytes: their length and a hash keyed by
// the Store's own seed.
type fileSum struct {
	ok   bool
	size int
	sum  uint64
}

// Open returns the store kept at path. It does no I/O: a missing file is
// an empty history, created by the first Add.
func Open(path string) *Store { return &Store{path: path, now: time.Now, seed: maphash.MakeSeed()} }

// Path is the file the store reads and writes.
func (s *Store) Path() string { return s.path }

// Aside says that a damaged history file was moved aside and a fresh one
// started: what was wrong and where the old bytes are now.
type Aside struct {
	Path   string // the damaged file's new name
	Reason error  // what was wrong with it (ErrCorrupt)
}

func (a *Aside) String() string {
	return fmt.Sprintf("%v; moved it to %s and started a new history", a.Reason, a.Path)
}

// List returns the records, newest first. A damaged file is set aside
// (under the lock) and the history is empty; aside says so.
func (s *Store) List() (recs []Record, aside *Aside, err error) {
	recs, err = s.read()
	if errors.Is(err, ErrCorrupt) {
		err = s.locked(func() error {
			recs, aside, err = s.readOrSetAside()
			return err
		})
	}
	if err != nil {
		return nil, aside, err
	}
	slices.Reverse(recs)
	return recs, aside, nil
}

// Add appends r (bounded: see the package doc; a zero At means now) and
// drops the oldest records until the history fits maxRecords and
// maxFileBytes. A damaged file is set aside first and r starts a new one;
// aside says so. A file from a newer ferry is ErrUnsupportedVersion and is
// not changed.
func (s *Store) Add(r Record) (aside *Aside, err error) {
	line := encodeRecord(clean(r))
	err = s.update(func(lines [][]byte, a *Aside) [][]byte {
		aside = a
		lines = append(lines, line)
		return lines[dropped(lines):]
	})
	return aside, err
}

// Clear empties the history and returns how many records it held. A
// damaged file is set aside (its records were unreadable: 0); a file from
// a newer ferry is ErrUnsupportedVersion and is not changed.
func (s *Store) Clear() (n int, aside *Aside, err error) {
	err = s.update(func(lines [][]byte, a *Aside) [][]byte {
		n, aside = len(lines), a
		return nil
	})
	return n, aside, err
}

// Warm reads the file and checks it whole, as the next Add must under
// the lock, so that Add then only finds the same bytes: a front end
// calls it while it waits (for a sender, for a receiver's answer), and
// the end of a transfer does not decode and encode the whole history.
// It changes nothing on disk, and a file it cannot read as written is
// left for Add to deal with.
func (s *Store) Warm() {
	b, found, err := s.readBytes()
	if err != nil || !found {
		return
	}
	recs, err := parse(s.path, b)
	if err != nil {
		return
	}
	// A file a person laid out otherwise is valid but not known: Add
	// writes it in encode's form, and knows it from then on.
	if bytes.Equal(joinLines(encodeLines(recs)), b) {
		s.remember(b)
	}
}

// remember notes b as the file's bytes, in encode's form.
func (s *Store) remember(b []byte) {
	sum := fileSum{ok: true, size: len(b), sum: maphash.Bytes(s.seed, b)}
	s.mu.Lock()
	s.known = sum
	s.mu.Unlock()
}

// knownLines returns b's records, oldest first, each as encodeRecord
// writes it, if b is the file this Store last found whole or wrote.
func (s *Store) knownLines(b []byte) ([][]byte, bool) {
	s.mu.Lock()
	k := s.known
	s.mu.Unlock()
	if !k.ok || k.size != len(b) || k.sum != maphash.Bytes(s.seed, b) {
		return nil, false
	}
	return splitLines(b)
}

// bound drops the oldest records until there are at most maxRecords and
// the file is at most maxFileBytes.
func bound(recs []Record) []Record {
	return recs[dropped(encodeLines(recs)):]
}

// dropped is how many of the oldest records bound drops, for records
// encoded as lines.
func dropped(lines [][]byte) int {
	drop := max(0, len(lines)-maxRecords)
	size := len(encode(nil))
	for _, l := range lines[drop:] {
		size += len(l) + 2 // the comma and the newline
	}
	for size > maxFileBytes && drop < len(lines)-1 {
		size -= len(lines[drop]) + 2
		drop++
	}
	return drop
}

// read returns the file's records, oldest first; a missing file is
// empty.
func (s *Store) read() ([]Record, error) {
	b, found, err := s.readBytes()
	if err != nil || !found {
		return nil, err
	}
	return parse(s.path, b)
}

// readBytes returns the file's bytes; found is false when there is no
// file.
func (s *Store) readBytes() (b []byte, found bool, err error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the history file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("reading the history file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("history file %s is not a regular file: move it away", s.path)
	}
	if err := platform.CheckPrivate(f, s.path); err != nil {
		return nil, false, fmt.Errorf("history file %w", err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxReadBytes+1)); err != nil {
		return nil, false, fmt.Errorf("reading history file %s: %w", s.path, err)
	}
	if buf.Len() > maxReadBytes {
		return nil, false, corrupt(s.path, "larger than %d MiB, which ferry never writes", maxReadBytes>>20)
	}
	return buf.Bytes(), true, nil
}

// readLines reads the file under the lock, as records (oldest first)
// each encoded as encodeRecord writes it: split from the file when it is
// the one this Store knows, decoded and encoded again otherwise. A
// damaged file is moved aside and the history starts empty.
func (s *Store) readLines() ([][]byte, *Aside, error) {
	b, found, err := s.readBytes()
	if err == nil && found {
		if lines, ok := s.knownLines(b); ok {
			return lines, nil, nil
		}
		var recs []Record
		if recs, err = parse(s.path, b); err == nil {
			return encodeLines(recs), nil, nil
		}
	}
	aside, err := s.setAsideIfCorrupt(err)
	return nil, aside, err
}

// readOrSetAside reads the file under the lock; a damaged one is moved
// aside and the history starts empty.
func (s *Store) readOrSetAside() ([]Record, *Aside, error) {
	recs, err := s.read()
	if err == nil {
		return recs, nil, nil
	}
	aside, err := s.setAsideIfCorrupt(err)
	return nil, aside, err
}

// setAsideIfCorrupt moves a damaged file aside when err, a read's
// error, says it is one (ErrCorrupt), and returns the Aside; any other
// error is returned as it is. The caller holds the lock.
func (s *Store) setAsideIfCorrupt(err error) (*Aside, error) {
	if !errors.Is(err, ErrCorrupt) {
		return nil, err
	}
	to, rerr := s.setAside()
	if rerr != nil {
		return nil, fmt.Errorf("%w; moving it aside failed too: %v", err, rerr)
	}
	return &Aside{Path: to, Reason: err}, nil
}

// setAside renames the file to a free history.json.damaged-TIME name
// beside it. The caller holds the lock.
func (s *Store) setAside() (string, error) {
	base := s.path + ".damaged-" + s.now().UTC().Format("20060102T150405Z")
	to := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.Rename(s.path, to); err != nil {
		return "", err
	}
	return to, nil
}

// update runs change on the records (oldest first, each encoded as
// encodeRecord writes it) under the exclusive lock and writes the result
// atomically. A damaged file is set aside first and change gets an empty
// history and the Aside. An error leaves the file as it was.
func (s *Store) update(change func(lines [][]byte, a *Aside) [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating the history file's folder: %w", err)
	}
	return s.locked(func() error {
		lines, aside, err := s.readLines()
		if err != nil {
			return err
		}
		b := joinLines(change(lines, aside))
		if err := jsonfile.WriteAtomic(s.path, b); err != nil {
			return fmt.Errorf("writing the history file: %w", err)
		}
		s.remember(b)
		return nil
	})
}

// locked runs f holding the exclusive lock on the sibling lock file
// (core/internal/jsonfile).
func (s *Store) locked(f func() error) error {
	unlock, err := jsonfile.Lock(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the history file: %w", err)
	}
	defer unlock()
	return f()
}
