package mobile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/pick"
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

// hostPath is where a host file sits in the core/app Sources that sends
// it: core/app reads it as any file, with the same checks, hashes and
// resume, under its Name.
const hostPath = "file"

// hostItem is the event.Item that sends f under its Name.
func hostItem(f HostFile) (event.Item, error) {
	name := f.Name()
	if name == "" || strings.ContainsAny(name, `/\`) {
		return event.Item{}, fmt.Errorf("a file added with AddFile is named %q: it needs one name, with no slash", name)
	}
	if f.Size() < 0 {
		return event.Item{}, fmt.Errorf("%s: the app gave a negative size", name)
	}
	src := pick.NewSources()
	if err := src.Add(hostPath, hostSource{f}); err != nil {
		return event.Item{}, err
	}
	return event.Item{FS: src, Path: hostPath, Name: name}, nil
}

// hostSource is a HostFile as a core/app Source.
type hostSource struct{ f HostFile }

func (h hostSource) Size() int64 { return h.f.Size() }

func (h hostSource) ModTime() time.Time {
	if ms := h.f.ModTimeUnixMillis(); ms != 0 {
		return time.UnixMilli(ms)
	}
	return time.Time{}
}

func (h hostSource) Open() (io.ReadCloser, error) {
	r, err := h.f.Open()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: h.f.Name(), Err: err}
	}
	if r == nil {
		return nil, &fs.PathError{Op: "open", Path: h.f.Name(), Err: errors.New("the app's Open returned no reader")}
	}
	return &hostReader{f: h.f, r: r}, nil
}

// hostReader is an open HostFile as an io.Reader.
type hostReader struct {
	f HostFile
	r HostReader
}

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
