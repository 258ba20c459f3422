//go:build js && wasm

package main

import (
	"syscall/js"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

// jsSink hands a receiver's entries to the page's sink object (see the
// package doc); each call waits for the promise the page returns.
type jsSink struct {
	o js.Value
	// copies: the sink's write has copied the bytes by the time its
	// promise resolves (worker.js's proxy of a gathering sink, which makes
	// a Blob of each write at once), so one array, made once, carries
	// every write of the transfer, copyBatch bytes at a time. Otherwise
	// every write gets a new array, which the sink keeps.
	copies bool
	arr    js.Value // the reused array, once made
}

func newJSSink(o js.Value) *jsSink {
	return &jsSink{o: o, copies: o.Get("copies").Truthy()}
}

func entryObject(e event.Entry) js.Value {
	var mtime int64
	if !e.ModTime.IsZero() {
		mtime = e.ModTime.UnixMilli()
	}
	return js.ValueOf(map[string]any{"path": e.Path, "kind": e.Kind.String(), "size": e.Size,
		"mode": int(e.Mode.Perm()), "mtime": mtime})
}

func (s *jsSink) Folder(e event.Entry) error {
	_, err := call(s.o, "folder", entryObject(e))
	return err
}

func (s *jsSink) File(e event.Entry) (event.SinkFile, error) {
	if _, err := call(s.o, "start", entryObject(e)); err != nil {
		return nil, err
	}
	return &jsSinkFile{s: s, o: s.o}, nil
}

func (s *jsSink) End(err error) {
	arg := js.Null()
	if err != nil {
		arg = jsEvent(errorEvent(err))
	}
	call(s.o, "end", arg)
}

// sinkBatch is how many bytes jsSinkFile gathers in Go before it copies
// them out to the sink in one array: one crossing per MiB, not one per
// record.
const sinkBatch = 1 << 20

// copyBatch is sinkBatch for a sink that copies: the size of the Blob
// pieces a gathering sink is made of (save.js's blobSlice), each one
// crossing and one Blob; its one array is reused, so the size costs no
// more than once.
const copyBatch = 8 << 20

type jsSinkFile struct {
	s   *jsSink
	o   js.Value
	buf []byte
}

// Write gathers p; every sinkBatch bytes (copyBatch) go to the sink's
// write in a new Uint8Array, which the sink keeps (in the one array,
// which the sink has copied once its write returns).
func (f *jsSinkFile) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if f.buf == nil {
			size := sinkBatch
			if f.s.copies {
				size = copyBatch
			}
			f.buf = make([]byte, 0, size)
		}
		k := copy(f.buf[len(f.buf):cap(f.buf)], p)
		f.buf = f.buf[:len(f.buf)+k]
		p = p[k:]
		if len(f.buf) == cap(f.buf) {
			if err := f.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (f *jsSinkFile) flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	start := time.Now()
	var u8 js.Value
	if f.s.copies {
		if f.s.arr.IsUndefined() {
			f.s.arr = js.Global().Get("Uint8Array").New(copyBatch)
		}
		u8 = f.s.arr
		if len(f.buf) < copyBatch {
			u8 = u8.Call("subarray", 0, len(f.buf))
		}
	} else {
		u8 = js.Global().Get("Uint8Array").New(len(f.buf))
	}
	js.CopyBytesToJS(u8, f.buf)
	crossed(app.StageDiskWrite, start, len(f.buf))
	passed(len(f.buf))
	f.buf = f.buf[:0]
	_, err := call(f.o, "write", u8)
	return err
}

func (f *jsSinkFile) Close(verified bool) error {
	if verified {
		if err := f.flush(); err != nil {
			f.buf = nil
			call(f.o, "finish", false)
			return err
		}
	}
	f.buf = nil
	_, err := call(f.o, "finish", verified)
	return err
}
