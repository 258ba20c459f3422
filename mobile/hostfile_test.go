package mobile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// memHostFile is a HostFile held in memory, as an app's content-URI
// adapter would be in Kotlin: not the OS disk. Its reader hands out at
// most step bytes a call, fewer than asked, as a stream does.
type memHostFile struct {
	name   string
	data   []byte
	mtime  int64
	step   int
	failAt int // a Read past this offset fails (0: never)
	opens  atomic.Int32
	closes atomic.Int32
}

func (f *memHostFile) Name() string             { return f.name }
func (f *memHostFile) Size() int64              { return int64(len(f.data)) }
func (f *memHostFile) ModTimeUnixMillis() int64 { return f.mtime }
func (f *memHostFile) Open() (HostReader, error) {
	f.opens.Add(1)
	return &memHostReader{f: f}, nil
}

type memHostReader struct {
	f   *memHostFile
	off int
}

func (r *memHostReader) Read(max int64) ([]byte, error) {
	if r.f.failAt > 0 && r.off >= r.f.failAt {
		return nil, errors.New("the content provider went away")
	}
	n := min(int(max), r.f.step, len(r.f.data)-r.off)
	b := r.f.data[r.off : r.off+n]
	r.off += n
	return append([]byte(nil), b...), nil
}

func (r *memHostReader) Close() error { r.f.closes.Add(1); return nil }

func patternBytes(n int) []byte {
	b := make([]byte, n)
	x := uint32(7)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// TestSendHostFiles: files the app reads itself, added with AddFile, go
// through a real receiver over TCP beside a JSON item, and land
// byte-identical under their names with their times.
func TestSendHostFiles(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA, recvEv := newTestNode(t, "Receiving phone")
	phoneB, sendEv := newTestNode(t, "Sending phone")
	opts := loopbackReceive(t)
	rt, err := phoneA.Receive(opts)
	if err != nil {
		t.Fatal(err)
	}
	recvEv.onCall = func(c call) {
		if c.method == "offer" {
			rt.Accept()
		}
	}
	mtime := time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC).UnixMilli()
	photo := &memHostFile{name: "IMG_0001.jpg", data: patternBytes(1<<20 + 123), mtime: mtime, step: 7777}
	empty := &memHostFile{name: "empty.txt", step: 10}
	so := NewSendOptions()
	so.Addr = "127.0.0.1:" + strconv.Itoa(rt.Port())
	so.Code = rt.Code()
	so.ItemsJSON = `[{"text": "and a note", "name": "note.txt"}]`
	for _, f := range []*memHostFile{photo, empty} {
		if err := so.AddFile(f); err != nil {
			t.Fatal(err)
		}
	}
	st, err := phoneB.Send(so)
	if err != nil {
		t.Fatal(err)
	}
	if end := sendEv.terminal(t, st.ID(), waitLong); end.method != "done" {
		t.Fatalf("sender: %s", end.arg)
	}
	if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "done" {
		t.Fatalf("receiver: %s", end.arg)
	}
	for _, f := range []*memHostFile{photo, empty} {
		got, err := os.ReadFile(filepath.Join(opts.Dir, f.name))
		if err != nil || !bytes.Equal(got, f.data) {
			t.Errorf("%s: %d bytes, %v; want %d", f.name, len(got), err, len(f.data))
		}
		if f.opens.Load() != 1 || f.closes.Load() != 1 {
			t.Errorf("%s: opened %d times, closed %d", f.name, f.opens.Load(), f.closes.Load())
		}
	}
	if fi, err := os.Stat(filepath.Join(opts.Dir, photo.name)); err != nil || fi.ModTime().UnixMilli() != mtime {
		t.Errorf("photo's time: %v, %v", fi, err)
	}
}

// TestSendHostFileFails: a reader that fails mid-file fails the
// transfer with the app's words, and a name with a slash is refused
// before anything is sent.
func TestSendHostFileFails(t *testing.T) {
	testkit.CheckGoroutines(t)
	phoneA, recvEv := newTestNode(t, "Receiving phone")
	phoneB, sendEv := newTestNode(t, "Sending phone")
	rt, err := phoneA.Receive(loopbackReceive(t))
	if err != nil {
		t.Fatal(err)
	}
	recvEv.onCall = func(c call) {
		if c.method == "offer" {
			rt.Accept()
		}
	}
	so := NewSendOptions()
	so.Addr = "127.0.0.1:" + strconv.Itoa(rt.Port())
	so.Code = rt.Code()
	if err := so.AddFile(&memHostFile{name: "dir/x", data: []byte("x"), step: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := phoneB.Send(so); err == nil {
		t.Error("a name with a slash was sent")
	}
	so = NewSendOptions()
	so.Addr = "127.0.0.1:" + strconv.Itoa(rt.Port())
	so.Code = rt.Code()
	so.AddFile(&memHostFile{name: "video.mp4", data: patternBytes(600_000), step: 50_000, failAt: 300_000})
	st, err := phoneB.Send(so)
	if err != nil {
		t.Fatal(err)
	}
	end := sendEv.terminal(t, st.ID(), waitLong)
	if end.method != "error" || !bytes.Contains([]byte(end.arg), []byte("the content provider went away")) {
		t.Fatalf("sender: %s %s", end.method, end.arg)
	}
	if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "error" {
		t.Fatalf("receiver: %s", end.arg)
	}
}
