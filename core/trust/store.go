package trust

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/internal/jsonfile"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
)

// Errors a caller may branch on. Returned errors wrap them with the file
// or the name that was asked for.
var (
	// ErrNotFound: no device matches the name or fingerprint.
	ErrNotFound = errkind.New(errkind.NoSuchDevice, "no such device")
	// ErrAmbiguous: more than one device matches; the message lists them,
	// so the person can give more of the fingerprint.
	ErrAmbiguous = errkind.New(errkind.Ambiguous, "more than one device matches")
	// ErrCorrupt: the trust file cannot be read as written; the message
	// names the file and the line or entry that is wrong.
	ErrCorrupt = errkind.New(errkind.TrustFile, "trust file is corrupt")
	// ErrUnsupportedVersion: the trust file was written by a newer ferry.
	ErrUnsupportedVersion = errkind.New(errkind.TrustFile, "unsupported trust file version")
)

// Device is a device known by its static key.
type Device struct {
	Name     string
	Key      []byte    // 32-byte Curve25519 static public key
	PairedAt time.Time // when it was trusted (in Recent: when a code authenticated it)
}

// Fingerprint is the device key's short form, as core/secure makes it
// and discovery advertises it.
func (d Device) Fingerprint() string { return secure.Fingerprint(d.Key) }

// Store is the trust file at one path. It holds no state of its own:
// every call reads the file (and every change rewrites it under the
// lock), so several Stores, goroutines and processes may use one path.
type Store struct {
	path string
}

// fileName is the trust file's name in the config directory.
const fileName = "trusted.json"

// DefaultPath is the trust file of this user: trusted.json beside the
// static key, in core/secure's DefaultDir.
func DefaultPath() (string, error) { return jsonfile.DefaultPath(fileName) }

// Open returns the store kept at path. It does no I/O: a missing file is
// an empty store, created on the first change.
func Open(path string) *Store { return &Store{path: path} }

// Path is the file the store reads and writes.
func (s *Store) Path() string { return s.path }

// Devices returns the trusted devices, sorted by name (then fingerprint).
func (s *Store) Devices() ([]Device, error) {
	c, err := s.read()
	if err != nil {
		return nil, err
	}
	return c.devices, nil
}

// Trusted returns the trusted device whose key is key, if there is one.
func (s *Store) Trusted(key []byte) (Device, bool, error) {
	c, err := s.read()
	if err != nil {
		return Device{}, false, err
	}
	for _, d := range c.devices {
		if bytes.Equal(d.Key, key) {
			return d, true, nil
		}
	}
	return Device{}, false, nil
}

// Add trusts d. A device with the same key is replaced (its name and
// time updated); a zero PairedAt means now. Another device with the same
// name and a different key stays: two devices may share a name, and the
// person removes a stale one by fingerprint.
func (s *Store) Add(d Device) error {
	d, err := checkDevice(d)
	if err != nil {
		return fmt.Errorf("trusting a device: %w", err)
	}
	return s.update(func(c *contents) error {
		c.devices = slices.DeleteFunc(c.devices, func(o Device) bool { return bytes.Equal(o.Key, d.Key) })
		c.devices = append(c.devices, d)
		sortDevices(c.devices)
		return nil
	})
}

// Remove removes the trusted device named by nameOrFingerprint (see the
// package doc's Matching) and returns it. No match is ErrNotFound, more
// than one ErrAmbiguous; neither changes the file.
func (s *Store) Remove(nameOrFingerprint string) (Device, error) {
	var removed Device
	err := s.update(func(c *contents) error {
		d, err := Lookup(c.devices, nameOrFingerprint)
		if err != nil {
			return err
		}
		removed = d
		c.devices = slices.DeleteFunc(c.devices, func(o Device) bool { return bytes.Equal(o.Key, d.Key) })
		return nil
	})
	if err != nil {
		return Device{}, err
	}
	return removed, nil
}

// NoteRecent remembers d as a peer that a code just authenticated, at the
// front of the recent list (an older entry with its key is dropped; at
// most 16 are kept). A zero PairedAt means now.
func (s *Store) NoteRecent(d Device) error {
	d, err := checkDevice(d)
	if err != nil {
		return fmt.Errorf("remembering a device: %w", err)
	}
	return s.update(func(c *contents) error {
		c.recent = slices.DeleteFunc(c.recent, func(o Device) bool { return bytes.Equal(o.Key, d.Key) })
		c.recent = append([]Device{d}, c.recent...)
		if len(c.recent) > maxRecent {
			c.recent = c.recent[:maxRecent]
		}
		return nil
	})
}

// Recent returns the peers most recently authenticated by a code, newest
// first, at most 16.
func (s *Store) Recent() ([]Device, error) {
	c, err := s.read()
	if err != nil {
		return nil, err
	}
	if len(c.recent) > maxRecent {
		c.recent = c.recent[:maxRecent]
	}
	return c.recent, nil
}

func checkDevice(d Device) (Device, error) {
	if len(d.Key) != keySize {
		return d, fmt.Errorf("key is %d bytes, want %d", len(d.Key), keySize)
	}
	if err := checkName(d.Name); err != nil {
		return d, fmt.Errorf("%s", strings.ReplaceAll(err.Error(), `"name"`, "name"))
	}
	d.Key = slices.Clone(d.Key)
	if d.PairedAt.IsZero() {
		d.PairedAt = time.Now()
	}
	// The file keeps seconds; keep the same here so what Add was given
	// and what Devices returns agree.
	d.PairedAt = d.PairedAt.UTC().Truncate(time.Second)
	return d, nil
}

func sortDevices(ds []Device) {
	slices.SortStableFunc(ds, func(a, b Device) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return bytes.Compare(a.Key, b.Key)
	})
}

// read returns the file's contents; a missing file is empty.
func (s *Store) read() (contents, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return contents{}, nil
	}
	if err != nil {
		return contents{}, fmt.Errorf("reading trust file: %w", err)
	}
	defer f.Close()
	// Checked on the open file, so the access rights and the bytes are of
	// the same file even if a writer renames a new one in between.
	fi, err := f.Stat()
	if err != nil {
		return contents{}, fmt.Errorf("reading trust file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return contents{}, fmt.Errorf("trust file %s is not a regular file", s.path)
	}
	if err := platform.CheckPrivate(f, s.path); err != nil {
		return contents{}, fmt.Errorf("trust file %w", err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return contents{}, fmt.Errorf("reading trust file %s: %w", s.path, err)
	}
	c, err := parse(s.path, buf.Bytes())
	if err != nil {
		return contents{}, err
	}
	sortDevices(c.devices)
	return c, nil
}

// update runs change on the file's contents under the exclusive lock and
// writes the result atomically. An error from change leaves the file as
// it was.
func (s *Store) update(change func(*contents) error) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the trust file's folder: %w", err)
	}
	unlock, err := jsonfile.Lock(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the trust file: %w", err)
	}
	defer unlock()
	c, err := s.read()
	if err != nil {
		return err
	}
	if err := change(&c); err != nil {
		return err
	}
	if err := jsonfile.WriteAtomic(s.path, encode(c)); err != nil {
		return fmt.Errorf("writing trust file: %w", err)
	}
	return nil
}
