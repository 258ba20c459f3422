// Package jsonfile holds what Ferry's small private JSON files (the
// trust store in core/trust, the history in core/history, the guess
// budget in core/guess) share: a default place in the user's config
// folder, one writer at a time across processes, a private file replaced atomically
// and durably, and decoding errors that point at a line and column.
//
// It knows nothing of either file's contents; each package keeps its own
// schema, versions and error values and words its own messages around
// the ones returned here.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"github.com/ferry-project/ferry/core/platform"
)

// DefaultPath is this user's file named name: in core/platform's
// ConfigDir, beside the static key and the other stores' files.
func DefaultPath(name string) (string, error) {
	dir, err := platform.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// Lock takes the exclusive lock on the lock file at path, waiting for it
// (gofrs/flock: flock(2) on Unix, LockFileEx on Windows), and returns the
// function that releases it. The lock file is separate from the data
// file because the data file is replaced by rename: a lock on it would
// be on an inode nobody else opens any more, and on Windows a locked
// file cannot be renamed over at all.
func Lock(path string) (unlock func(), err error) {
	l := flock.New(path, flock.SetPermissions(0o600))
	if err := l.Lock(); err != nil {
		return nil, err
	}
	// Closing the descriptor releases the lock.
	return func() { l.Close() }, nil
}

// WriteAtomic replaces path with b: a temporary file in the same
// folder, made private, synced, and moved over path durably
// (core/platform's ReplaceFile: the folder synced on Unix, a
// write-through move on Windows), so a reader sees the old file or the
// new one whole, and the rename itself survives a crash.
func WriteAtomic(path string, b []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = platform.MakePrivate(tmp.Name()); err != nil {
		return err
	}
	if _, err = tmp.Write(b); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return platform.ReplaceFile(tmp.Name(), path)
}

// Describe says where and what a decoding error from encoding/json found
// in b: "line 3, column 15: invalid character '}' ...", or "line 1,
// column 1: the file ends in the middle of the JSON".
func Describe(b []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Error() != "unexpected end of JSON input" {
		// Offset counts the offending byte: point at it, not after it.
		line, col := Position(b, se.Offset-1)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	if se != nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		line, col := Position(b, int64(len(b)))
		return fmt.Sprintf("line %d, column %d: the file ends in the middle of the JSON", line, col)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := Position(b, te.Offset)
		return fmt.Sprintf("line %d, column %d: %s", line, col, Message(err))
	}
	return Message(err)
}

// Message says what a decoding error found, without the json package's
// "json: " prefix and Go type names, and without a position (for callers
// that name the place themselves, e.g. "record 3").
func Message(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	if te.Field == "" {
		return fmt.Sprintf("found a %s, want an object", te.Value)
	}
	want := te.Type.Kind().String()
	switch want {
	case "string", "ptr":
		want = "string"
	case "int", "int64", "uint8", "uint16", "uint32", "uint64", "float64":
		want = "number"
	case "struct", "map":
		want = "object"
	case "slice":
		want = "list"
	}
	return fmt.Sprintf("%q is a %s, want a %s", te.Field, te.Value, want)
}

// Position returns the 1-based line and column of byte offset off in b.
func Position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Line returns the 1-based line of byte offset off in b.
func Line(b []byte, off int64) int {
	line, _ := Position(b, off)
	return line
}

// NextValue skips the whitespace and comma after off, to where the next
// array element starts, so an element's line is its own, not the
// previous one's.
func NextValue(b []byte, off int64) int64 {
	for off < int64(len(b)) && bytes.IndexByte([]byte(" \t\r\n,"), b[off]) >= 0 {
		off++
	}
	return off
}
