// Package guessfile keeps a device's guess budget (core/transfer's
// Budget) in a file beside the trust store, so that the count of wrong
// codes survives a restart that no person made: a start at login, a
// service manager's restart, the tray's.
//
// # The file
//
// guesses.json, in the config folder that holds the static key and
// trusted.json (core/secure's DefaultDir):
//
//	{
//	  "version": 1,
//	  "wrong": 3,
//	  "last": "2026-12-04T03:00:00.123456789Z",
//	  "stopped": false
//	}
//
// wrong counts the wrong codes checked since a person last acted, last
// is when the last of them was checked (null when none), stopped says
// that no code is checked until a person acts. A missing file is a
// fresh budget.
//
// # Writes
//
// It is written as the trust store is (core/internal/jsonfile): under an
// exclusive lock file, through a temporary file that is made private
// (0600), synced and renamed over the old one, so a reader sees the old
// count or the new one whole and a crash loses neither.
//
// # Damage
//
// A file that cannot be read as written (a crash on a file system that
// does not honour fsync, a hand edit, a newer ferry's format) is set
// aside as guesses.json.damaged, replacing an older one there, and Load
// returns errDamaged saying what was wrong and where it went. A file
// others may write is not trusted either (errDamaged too, left in
// place: the next write replaces it with a private one). The budget then
// starts stopped, not fresh (core/transfer's NewBudget says why).
package guessfile

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
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
)

// errDamaged: the file cannot be trusted to say how many wrong codes
// were checked. The error that wraps it says what was wrong and, when
// the file was set aside, where it went. Callers do not branch on it:
// core/transfer's NewBudget treats every Load error alike.
var errDamaged = errors.New("wrong-code count damaged")

// fileName is the budget's file in the config folder.
const fileName = "guesses.json"

// formatVersion is the version this package reads and writes.
const formatVersion = 1

// DefaultPath is this user's budget file: guesses.json beside the static
// key and the trust file.
func DefaultPath() (string, error) {
	dir, err := secure.DefaultDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, fileName), nil
}

// Store is the budget file at one path: a transfer.GuessStore.
type Store struct {
	path string
}

var _ transfer.GuessStore = (*Store)(nil)

// Open returns the store kept at path. It does no I/O: a missing file is
// a fresh budget, created on the first write.
func Open(path string) *Store { return &Store{path: path} }

// Path is the file the store reads and writes.
func (s *Store) Path() string { return s.path }

// Load reads the record: the zero record if there is no file, errDamaged
// (wrapped) if there is one that cannot be trusted.
func (s *Store) Load() (transfer.GuessRecord, error) {
	unlock, err := s.lock()
	if err != nil {
		return transfer.GuessRecord{}, err
	}
	defer unlock()
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return transfer.GuessRecord{}, nil
	}
	if err != nil {
		return transfer.GuessRecord{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return transfer.GuessRecord{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	if !fi.Mode().IsRegular() {
		return transfer.GuessRecord{}, fmt.Errorf("%w: %s is not a regular file", errDamaged, s.path)
	}
	if err := platform.CheckPrivate(f, s.path); err != nil {
		// Whoever else may write it could have reset it.
		return transfer.GuessRecord{}, fmt.Errorf("%w: %w", errDamaged, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return transfer.GuessRecord{}, fmt.Errorf("reading %s: %w", s.path, err)
	}
	rec, perr := parse(b)
	if perr == nil {
		return rec, nil
	}
	f.Close()
	aside := s.path + ".damaged"
	if err := os.Rename(s.path, aside); err != nil {
		return transfer.GuessRecord{}, fmt.Errorf("%w: %s: %v (and setting it aside failed: %v)", errDamaged, s.path, perr, err)
	}
	return transfer.GuessRecord{}, fmt.Errorf("%w: %s: %v (set aside as %s)", errDamaged, s.path, perr, aside)
}

// Save replaces the file with rec, creating the folder (0700) if needed.
func (s *Store) Save(rec transfer.GuessRecord) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating the folder of %s: %w", s.path, err)
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := jsonfile.WriteAtomic(s.path, encode(rec)); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) lock() (func(), error) {
	if _, err := os.Stat(filepath.Dir(s.path)); errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil // nothing to read yet; Save creates the folder first
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
func parse(b []byte) (transfer.GuessRecord, error) {
	if len(b) > maxFileBytes {
		return transfer.GuessRecord{}, fmt.Errorf("over %d bytes", maxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j jsonRecord
	if err := dec.Decode(&j); err != nil {
		return transfer.GuessRecord{}, errors.New(jsonfile.Describe(b, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return transfer.GuessRecord{}, fmt.Errorf("line %d: data after the end of the object", jsonfile.Line(b, dec.InputOffset()))
	}
	switch {
	case j.Version == nil:
		return transfer.GuessRecord{}, errors.New(`no "version" field`)
	case *j.Version != formatVersion:
		return transfer.GuessRecord{}, fmt.Errorf("format version %d; this ferry reads version %d", *j.Version, formatVersion)
	case j.Wrong == nil:
		return transfer.GuessRecord{}, errors.New(`no "wrong" field`)
	case *j.Wrong < 0:
		return transfer.GuessRecord{}, fmt.Errorf(`"wrong" is %d, below zero`, *j.Wrong)
	case j.Stopped == nil:
		return transfer.GuessRecord{}, errors.New(`no "stopped" field`)
	}
	rec := transfer.GuessRecord{Wrong: *j.Wrong, Stopped: *j.Stopped}
	if j.Last != nil {
		t, err := time.Parse(time.RFC3339Nano, *j.Last)
		if err != nil {
			return transfer.GuessRecord{}, fmt.Errorf(`"last" %q is not an RFC 3339 time`, *j.Last)
		}
		rec.Last = t
	}
	if rec.Wrong > 0 && rec.Last.IsZero() {
		return transfer.GuessRecord{}, fmt.Errorf(`"wrong" is %d with no "last"`, rec.Wrong)
	}
	return rec, nil
}

// encode renders rec in the documented format, ending in a newline.
func encode(rec transfer.GuessRecord) []byte {
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
