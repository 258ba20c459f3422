package mobile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// HostFile is a file that the app reads for Ferry, where Ferry has no
// path to open: an Android content URI (ContentResolver.openInputStream,
// its DISPLAY_NAME and SIZE), an iOS security-scoped URL
// (startAccessingSecurityScopedResource, a FileHandle). The app
// implements it (Kotlin: a class implementing HostFile; Swift:
// MobileHostFileProtocol) and adds it to a send with
// SendOptions.AddFile.
//
// Ferry calls it from its own threads, never two calls at once for one
// file. Name, Size and ModTimeUnixMillis are asked when the send starts
// and again after the file was read: a size or time that changed fails
// the transfer as source_changed, as a file on disk would.
type HostFile interface {
	// Name is the name the file is sent under: one name, no slash.
	Name() string
	// Size is the file's length in bytes, as it is now.
	Size() int64
	// ModTimeUnixMillis is the file's modification time in milliseconds
	// since 1970, or 0 when unknown (the receiver then gives it its own).
	ModTimeUnixMillis() int64
	// Open starts reading the file from its first byte. Ferry may open
	// a file more than once (to read it again from the start, when a
	// resume finds the receiver's partial copy different), and closes
	// every reader it opened.
	Open() (HostReader, error)
}

// HostReader reads one opened HostFile, front to back. No seek is ever
// asked: a resumed transfer reads the bytes the receiver already has to
// check them, then goes on from there.
type HostReader interface {
	// Read returns the next bytes of the file, at most max of them (a
	// few hundred KiB), fewer when that is what is at hand, and an empty
	// result only at the end of the file.
	Read(max int64) ([]byte, error)
	// Close ends the reading.
	Close() error
}

// hostFileMode is the mode a host file is sent with: content URIs and
// security-scoped files have none that means anything to the receiver.
const hostFileMode = 0o644

// hostPath is the one file in a hostFS.
const hostPath = "file"

// hostFS is a HostFile as an io/fs.FS holding it alone, at hostPath, so
// that core/transfer reads it as any file: the same checks, hashes and
// resume.
type hostFS struct{ f HostFile }

// hostItem is the event.Item that sends f under its Name.
func hostItem(f HostFile) (event.Item, error) {
	name := f.Name()
	if name == "" || strings.ContainsAny(name, `/\`) {
		return event.Item{}, fmt.Errorf("a file added with AddFile is named %q: it needs one name, with no slash", name)
	}
	if f.Size() < 0 {
		return event.Item{}, fmt.Errorf("%s: the app gave a negative size", name)
	}
	return event.Item{FS: hostFS{f}, Path: hostPath, Name: name}, nil
}

func (h hostFS) Open(name string) (fs.File, error) {
	if name != hostPath {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	r, err := h.f.Open()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: h.f.Name(), Err: err}
	}
	if r == nil {
		return nil, &fs.PathError{Op: "open", Path: h.f.Name(), Err: errors.New("the app's Open returned no reader")}
	}
	return &hostReader{f: h.f, r: r}, nil
}

// Stat answers without opening the file: a content URI's size and name
// come from a query, not from its stream.
func (h hostFS) Stat(name string) (fs.FileInfo, error) {
	if name != hostPath {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return hostInfo(h.f), nil
}

// hostReader is an open HostFile as an fs.File. It has neither Seek nor
// ReadAt: core/transfer then opens the file again to start over.
type hostReader struct {
	f HostFile
	r HostReader
}

func (h *hostReader) Stat() (fs.FileInfo, error) { return hostInfo(h.f), nil }

func (h *hostReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b, err := h.r.Read(int64(len(p)))
	if len(b) > len(p) {
		return 0, fmt.Errorf("reading %s: the app returned %d bytes where at most %d were asked", h.f.Name(), len(b), len(p))
	}
	n := copy(p, b)
	if err != nil {
		return n, fmt.Errorf("reading %s: %w", h.f.Name(), err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (h *hostReader) Close() error { return h.r.Close() }

// hostInfo is what the app says of f now.
func hostInfo(f HostFile) fs.FileInfo {
	var mt time.Time
	if ms := f.ModTimeUnixMillis(); ms != 0 {
		mt = time.UnixMilli(ms)
	}
	return fileInfo{name: f.Name(), size: f.Size(), mtime: mt}
}

type fileInfo struct {
	name  string
	size  int64
	mtime time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return hostFileMode }
func (i fileInfo) ModTime() time.Time { return i.mtime }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
