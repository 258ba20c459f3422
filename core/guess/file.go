//go:build !js

// The file needs a disk of this device's own (a lock file, an atomic
// rename), which the page's js/wasm build has not: there the budget
// lives in memory only.

package guess

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ferry-project/ferry/core/internal/jsonfile"
	"github.com/ferry-project/ferry/core/platform"
)

// errDamaged: the file cannot be trusted to say how many wrong codes
// were checked. The error that wraps it says what was wrong and, when
// the file was set aside, where it went. Callers do not branch on it:
// NewBudget treats every Load error alike.
var errDamaged = errors.New("wrong-code count damaged")

// fileName is the budget's file in the config folder.
const fileName = "guesses.json"

// formatVersion is the version this package reads and writes.
const formatVersion = 1

// DefaultPath is this user's budget file: guesses.json beside the static
// key and the trust file.
func DefaultPath() (string, error) { return jsonfile.DefaultPath(fileName) }

// Store is the budget file at one path: a Store.
type File struct {
	path string
}

var _ Store = (*File)(nil)

// Open returns the store kept at path. It does no I/O: a missing file is
// a fresh budget, created on the first write.
func OpenFile(path string) *File { return &File{path: path} }

// Path is the file the store reads and writes.
func (s *File) Path() string { return s.path }

// Load reads the record: the zero record if there is no file, errDamaged
// (wrapped) if there is one that cannot be trusted (set aside, when it
// cannot be read as written).
func (s *File) Load() (Record, error) {
	unlock, err := s.lock()
	if err != nil {
		return Record{}, err
	}
	defer unlock()
	return s.load()
}

// load is Load under the lock.
func (s *File) load() (Record, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, nil
	}
	if err != nil {
		return Record{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Record{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	if !fi.Mode().IsRegular() {
		return Record{}, fmt.Errorf("%w: %s is not a regular file", errDamaged, s.path)
	}
	if err := platform.CheckPrivate(f, s.path); err != nil {
		// Whoever else may write it could have reset it.
		return Record{}, fmt.Errorf("%w: %w", errDamaged, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return Record{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	rec, perr := parse(b)
	if perr == nil {
		return rec, nil
	}
	f.Close()
	aside := s.path + ".damaged"
	if err := os.Rename(s.path, aside); err != nil {
		return Record{}, fmt.Errorf("%w: %s: %v (and setting it aside failed: %v)", errDamaged, s.path, perr, err)
	}
	return Record{}, fmt.Errorf("%w: %s: %v (set aside as %s)", errDamaged, s.path, perr, aside)
}

// Save replaces the file with rec, creating the folder (0700) if needed.
func (s *File) Save(rec Record) error {
	return s.update(func(Record, error) Record { return rec }, true)
}

// Update reads the record, gives it to f and writes what f returns,
// under the lock from the read to the rename: the Store's one step. The
// file is written only when f changed the record, or when what was
// there could not be read. The folder is created (0700) only to write:
// a read leaves a missing folder missing (a receiver reading its count
// as it ends must not bring back a folder its owner just removed).
func (s *File) Update(f func(Record, error) Record) error { return s.update(f, false) }

func (s *File) update(f func(Record, error) Record, always bool) error {
	dir := filepath.Dir(s.path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if !always && same(f(Record{}, nil), Record{}) {
			return nil // nothing there, and nothing to write
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating the folder of %s: %w", s.path, err)
		}
		// Then the step as usual, under the lock: another process may
		// have written since.
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	old, lerr := s.load()
	rec := f(old, lerr)
	if !always && lerr == nil && same(old, rec) {
		return nil
	}
	if err := jsonfile.WriteAtomic(s.path, encode(rec)); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

// same says whether two records encode alike.
func same(a, b Record) bool {
	return a.Wrong == b.Wrong && a.Stopped == b.Stopped && a.Last.Equal(b.Last)
}

func (s *File) lock() (func(), error) {
	if _, err := os.Stat(filepath.Dir(s.path)); errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil // nothing to read yet; update creates the folder first
	}
	unlock, err := jsonfile.Lock(s.path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", s.path, err)
	}
	return unlock, nil
}

// maxFileBytes bounds what Load reads: a real file is under 100 bytes.
const maxFileBytes = 4096

// jsonRecord is the file as it is on disk. Pointers tell a missing
// field from a zero one.
type jsonRecord struct {
	Version *int    `json:"version"`
	Wrong   *int    `json:"wrong"`
	Last    *string `json:"last"`
	Stopped *bool   `json:"stopped"`
}

// parse reads the file's bytes, strictly: every field present, nothing
// else, one object.
func parse(b []byte) (Record, error) {
	if len(b) > maxFileBytes {
		return Record{}, fmt.Errorf("over %d bytes", maxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j jsonRecord
	if err := dec.Decode(&j); err != nil {
		return Record{}, errors.New(jsonfile.Describe(b, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return Record{}, fmt.Errorf("line %d: data after the end of the object", jsonfile.Line(b, dec.InputOffset()))
	}
	switch {
	case j.Version == nil:
		return Record{}, errors.New(`no "version" field`)
	case *j.Version != formatVersion:
		return Record{}, fmt.Errorf("format version %d; this ferry reads version %d", *j.Version, formatVersion)
	case j.Wrong == nil:
		return Record{}, errors.New(`no "wrong" field`)
	case *j.Wrong < 0:
		return Record{}, fmt.Errorf(`"wrong" is %d, below zero`, *j.Wrong)
	case j.Stopped == nil:
		return Record{}, errors.New(`no "stopped" field`)
	}
	rec := Record{Wrong: *j.Wrong, Stopped: *j.Stopped}
	if j.Last != nil {
		t, err := time.Parse(time.RFC3339Nano, *j.Last)
		if err != nil {
			return Record{}, fmt.Errorf(`"last" %q is not an RFC 3339 time`, *j.Last)
		}
		rec.Last = t
	}
	if rec.Wrong > 0 && rec.Last.IsZero() {
		return Record{}, fmt.Errorf(`"wrong" is %d with no "last"`, rec.Wrong)
	}
	return rec, nil
}

// encode renders rec in the documented format, ending in a newline.
func encode(rec Record) []byte {
	v, wrong, stopped := formatVersion, rec.Wrong, rec.Stopped
	j := jsonRecord{Version: &v, Wrong: &wrong, Stopped: &stopped}
	if !rec.Last.IsZero() {
		t := rec.Last.UTC().Format(time.RFC3339Nano)
		j.Last = &t
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("encoding the wrong-code count: %v", err)) // ints, a bool and a string
	}
	return append(b, '\n')
}
