//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"io"
	"path"
	"syscall/js"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/pick"
)

// newPickedFS makes the File objects a person picked into core/app's
// Sources: each file at its webkitRelativePath (a picked folder) or its
// name. A file's bytes are read with Blob.slice as the transfer asks for
// them, never whole.
func newPickedFS(files js.Value) (*pick.Sources, error) {
	n := files.Get("length").Int()
	if n == 0 {
		return nil, errors.New("no files picked")
	}
	src := pick.NewSources()
	for i := 0; i < n; i++ {
		f := files.Index(i)
		p := f.Get("webkitRelativePath").String()
		if f.Get("webkitRelativePath").Type() != js.TypeString || p == "" {
			p = f.Get("name").String()
		}
		mt := time.UnixMilli(int64(f.Get("lastModified").Float()))
		b := &blob{name: path.Base(p), file: f, size: int64(f.Get("size").Float()), mtime: mt}
		switch err := src.Add(p, b); {
		case errors.Is(err, pick.ErrSourceTwice):
			return nil, fmt.Errorf("%s was picked twice: pick it once", p)
		case err != nil:
			return nil, fmt.Errorf("cannot send %q: not a usable name", p)
		}
	}
	return src, nil
}

// blob is a picked File as a Source.
type blob struct {
	name  string
	file  js.Value
	size  int64
	mtime time.Time
}

func (b *blob) Size() int64        { return b.size }
func (b *blob) ModTime() time.Time { return b.mtime }
func (b *blob) Open() (io.ReadCloser, error) {
	return &blobFile{n: b, next: js.Undefined()}, nil
}

// readAhead is how much of a File one Blob.slice reads. Every slice
// costs a promise and, in Chromium, a round trip to the browser process
// that holds the file; the transfer asks for about 256 KiB at a time, so
// reading 4 MiB at once makes 16 times fewer of them.
const readAhead = 4 << 20

// blobFile reads a File front to back, readAhead bytes per slice, and
// serves the caller's reads from that buffer.
type blobFile struct {
	n    *blob
	off  int64    // of the next byte to fetch from the File
	buf  []byte   // fetched and not yet read
	mem  []byte   // buf's backing array, allocated on first read
	next js.Value // the promise of the slice at off, or undefined
	// slices is worker.js's ferryFileSlices reader of this File, made on
	// the first ask, or null where there is none: it reads every slice,
	// from one stream of the File, into one array that it reuses.
	slices js.Value
}

func (b *blobFile) Close() error {
	// The reader's stream of the File would otherwise stay open, its
	// next bytes read ahead, until the collector finds it: a file the
	// transfer stopped in the middle of.
	if b.slices.Type() == js.TypeObject {
		catch(func() { b.slices.Call("close") })
	}
	b.mem, b.buf, b.next, b.slices = nil, nil, js.Undefined(), js.Undefined()
	return nil
}

func (b *blobFile) Read(p []byte) (int, error) {
	if len(b.buf) == 0 {
		if err := b.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// fill fetches the next slice of the File into buf. The browser reads
// a slice (Blob.arrayBuffer) on threads of its own, so fill asks for
// the slice after it at once: it is read while the transfer hashes and
// seals this one, and the wait for its promise is usually short.
func (b *blobFile) fill() error {
	if b.off >= b.n.size {
		return io.EOF
	}
	if b.next.IsUndefined() {
		b.ask(b.off)
	}
	ab, err := await(b.next)
	b.next = js.Undefined()
	if err != nil {
		// The browser fails a read of a File that changed since it was
		// picked (NotReadableError).
		return fmt.Errorf("reading %s: %w", b.n.name, err)
	}
	if b.mem == nil {
		b.mem = make([]byte, min(readAhead, b.n.size))
	}
	start := time.Now()
	if ab.InstanceOf(js.Global().Get("ArrayBuffer")) {
		ab = js.Global().Get("Uint8Array").New(ab)
	}
	n := js.CopyBytesToGo(b.mem, ab)
	crossed(app.StageDiskRead, start, n)
	if n == 0 {
		return io.ErrUnexpectedEOF
	}
	b.buf = b.mem[:n]
	b.off += int64(n)
	passed(n)
	if b.off < b.n.size {
		b.ask(b.off)
	}
	return nil
}

// ask starts reading the slice at off; fill awaits it. The slice comes
// as an ArrayBuffer of its own (Blob.arrayBuffer), or, through worker.js's
// ferryFileSlices, as a Uint8Array over the one buffer that reader
// reuses: a fresh buffer of readAhead bytes per slice is memory the
// browser maps, touches and unmaps again every 4 MiB. The reader reuses
// its buffer only once fill has copied the slice out and asked for the
// next, and it reads the whole File through one stream, since fill asks
// for each slice where the one before it ended.
func (b *blobFile) ask(off int64) {
	end := min(off+readAhead, b.n.size)
	if err := catch(func() {
		if b.slices.IsUndefined() {
			if f := js.Global().Get("ferryFileSlices"); f.Type() == js.TypeFunction {
				b.slices = f.Invoke(b.n.file, min(readAhead, b.n.size))
			} else {
				b.slices = js.Null()
			}
		}
		if !b.slices.IsNull() {
			b.next = b.slices.Call("read", off, end)
			return
		}
		b.next = b.n.file.Call("slice", off, end).Call("arrayBuffer")
	}); err != nil {
		b.next = js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New(err.Error()))
	}
}
