package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// Store is the history file at one path. It holds no state of its own:
// every call reads the file (and every change rewrites it under the
// lock), so several Stores, goroutines and processes may share a path.
type Store struct {
	path string
	now  func() time.Time // names a damaged file set aside
}

// Open returns the store kept at path. It does no I/O: a missing file is
// an empty history, created by the first Add.
func Open(path string) *Store { return &Store{path: path, now: time.Now} }

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
	r = clean(r)
	err = s.update(func(recs []Record, a *Aside) ([]Record, error) {
		aside = a
		return bound(append(recs, r)), nil
	})
	return aside, err
}

// Clear empties the history and returns how many records it held. A
// damaged file is set aside (its records were unreadable: 0); a file from
// a newer ferry is ErrUnsupportedVersion and is not changed.
func (s *Store) Clear() (n int, aside *Aside, err error) {
	err = s.update(func(recs []Record, a *Aside) ([]Record, error) {
		n, aside = len(recs), a
		return nil, nil
	})
	return n, aside, err
}

// bound drops the oldest records until there are at most maxRecords and
// the file is at most maxFileBytes.
func bound(recs []Record) []Record {
	if len(recs) > maxRecords {
		recs = recs[len(recs)-maxRecords:]
	}
	size := len(encode(nil))
	sizes := make([]int, len(recs))
	for i, r := range recs {
		sizes[i] = len(encodeRecord(r)) + 2 // the comma and the newline
		size += sizes[i]
	}
	drop := 0
	for size > maxFileBytes && drop < len(recs)-1 {
		size -= sizes[drop]
		drop++
	}
	return recs[drop:]
}

// read returns the file's records, oldest first; a missing file is
// empty.
func (s *Store) read() ([]Record, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the history file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the history file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("history file %s is not a regular file: move it away", s.path)
	}
	if err := platform.CheckPrivate(f, s.path); err != nil {
		return nil, fmt.Errorf("history file %w", err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxReadBytes+1)); err != nil {
		return nil, fmt.Errorf("reading history file %s: %w", s.path, err)
	}
	if buf.Len() > maxReadBytes {
		return nil, corrupt(s.path, "larger than %d MiB, which ferry never writes", maxReadBytes>>20)
	}
	return parse(s.path, buf.Bytes())
}

// readOrSetAside reads the file under the lock; a damaged one is moved
// aside and the history starts empty.
func (s *Store) readOrSetAside() ([]Record, *Aside, error) {
	recs, err := s.read()
	if !errors.Is(err, ErrCorrupt) {
		return recs, nil, err
	}
	to, rerr := s.setAside()
	if rerr != nil {
		return nil, nil, fmt.Errorf("%w; moving it aside failed too: %v", err, rerr)
	}
	return nil, &Aside{Path: to, Reason: err}, nil
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

// update runs change on the records (oldest first) under the exclusive
// lock and writes the result atomically. A damaged file is set aside
// first and change gets an empty history and the Aside. An error leaves
// the file as it was.
func (s *Store) update(change func([]Record, *Aside) ([]Record, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating the history file's folder: %w", err)
	}
	return s.locked(func() error {
		recs, aside, err := s.readOrSetAside()
		if err != nil {
			return err
		}
		recs, err = change(recs, aside)
		if err != nil {
			return err
		}
		if err := jsonfile.WriteAtomic(s.path, encode(recs)); err != nil {
			return fmt.Errorf("writing the history file: %w", err)
		}
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
