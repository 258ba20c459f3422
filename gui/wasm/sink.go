//go:build js && wasm

package main

import (
	"net"
	"syscall/js"
	"time"

	"github.com/ferry-project/ferry/core/diag"

	"github.com/ferry-project/ferry/core/transfer"
)

type netConn = net.Conn

// jsSink hands a receiver's entries to the page's sink object (see the
// package doc); each call waits for the promise the page returns.
type jsSink struct{ o js.Value }

func entryObject(e transfer.Entry) js.Value {
	var mtime int64
	if !e.ModTime.IsZero() {
		mtime = e.ModTime.UnixMilli()
	}
	return js.ValueOf(map[string]any{"path": e.Path, "kind": e.Kind.String(), "size": e.Size,
		"mode": int(e.Mode.Perm()), "mtime": mtime})
}

func (s *jsSink) Folder(e transfer.Entry) error {
	_, err := call(s.o, "folder", entryObject(e))
	return err
}

func (s *jsSink) File(e transfer.Entry) (transfer.SinkFile, error) {
	if _, err := call(s.o, "start", entryObject(e)); err != nil {
		return nil, err
	}
	return &jsSinkFile{o: s.o}, nil
}

func (s *jsSink) End(err error) {
	arg := js.Null()
	if err != nil {
		arg = js.ValueOf(errorObject(err))
	}
	call(s.o, "end", arg)
}

type jsSinkFile struct{ o js.Value }

// Write copies p into a new Uint8Array, which the sink keeps.
func (f *jsSinkFile) Write(p []byte) (int, error) {
	start := time.Now()
	u8 := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(u8, p)
	crossed(diag.DiskWrite, start, len(p))
	passed(len(p))
	if _, err := call(f.o, "write", u8); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (f *jsSinkFile) Close(verified bool) error {
	_, err := call(f.o, "finish", verified)
	return err
}
