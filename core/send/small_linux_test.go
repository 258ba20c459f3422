package send

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// recorder is a stream that keeps what is written to it.
type recorder struct{ bytes.Buffer }

func (*recorder) Flush() error             { return nil }
func (*recorder) Prefetch(int) error       { return nil }
func (*recorder) CloseWrite() error        { return nil }
func (*recorder) Close() error             { return nil }
func (*recorder) NetConn() net.Conn        { return nil }
func (*recorder) Read([]byte) (int, error) { return 0, io.EOF }

// newTestSender is a sender of items whose stream records what it
// sends, ready for sendEntry; generic makes it read every file through
// sendEntry's general path (a DiskRead hook that changes nothing), the
// path a small file took before sendSmall.
func newTestSender(t *testing.T, items []event.Item, generic bool) (*sender, *recorder) {
	t.Helper()
	entries, srcs, err := buildManifest(items)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s := &sender{entries: entries, srcs: srcs}
	s.Conn, s.Events, s.Timers = rec, &transfer.Emitter{}, &diag.Timers{}
	s.meter = transfer.NewMeter(s.Events, s.Timers, "", 0, len(entries))
	s.buf = make([]byte, wire.HeaderLen+transfer.MaxChunk)
	t.Cleanup(s.dirs.close)
	if generic {
		s.hooks = &testhooks.Hooks{DiskRead: func(r io.Reader) io.Reader { return r }}
	}
	return s, rec
}

// sendAll sends every file entry as exchange does, with no answer item.
func sendAll(s *sender) error {
	for i, e := range s.entries {
		if e.Kind == event.KindDir {
			continue
		}
		if err := s.sendEntry(context.Background(), i, e, nil, nil); err != nil {
			return transfer.HidePath(err, s.srcs[i].shown, e.Path)
		}
	}
	return nil
}

// TestSendSmallAsSendEntry: a folder of small files (empty, one byte,
// one chunk exactly, and one over a chunk, which sendEntry sends) goes
// on the wire byte for byte as sendEntry's general path sends it, and a
// file that changed, shrank, grew or vanished after the manifest was
// made fails the same way, with the same words.
func TestSendSmallAsSendEntry(t *testing.T) {
	sizes := map[string]int{"empty": 0, "one": 1, "small": 4096, "chunk": transfer.MaxChunk, "over": transfer.MaxChunk + 1}
	root := t.TempDir()
	// build writes the folder afresh, at the same path each time, so
	// that the errors of two runs name the same files.
	build := func(t *testing.T) (string, string) {
		dir := filepath.Join(root, "tree")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		// Files above, beside and below sub, so that the folders held
		// open go down and come back up.
		for _, p := range []string{"a", "sub/deeper/z", "zz/y"} {
			p = filepath.Join(dir, p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for name, n := range sizes {
			p := filepath.Join(dir, "sub", name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			b := bytes.Repeat([]byte(name[:1]), n)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir, filepath.Join(dir, "sub", "small")
	}
	dir, _ := build(t)
	// A second item in another folder, and a file alone.
	other := filepath.Join(t.TempDir(), "other")
	if err := os.MkdirAll(filepath.Join(other, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"in/b", "c"} {
		if err := os.WriteFile(filepath.Join(other, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	items := []event.Item{{Path: dir}, {Path: filepath.Join(other, "in")}, {Path: filepath.Join(other, "c")}, {Path: filepath.Join(dir, "a"), Name: "a2"}}
	fast, fastRec := newTestSender(t, items, false)
	slow, slowRec := newTestSender(t, items, true)
	for i, e := range fast.entries {
		if e.Kind == event.KindDir {
			continue
		}
		if err := fast.sendEntry(context.Background(), i, e, nil, nil); err != nil {
			t.Fatal(err)
		}
		// What is held open is the file's folder and those above it,
		// nothing beside it.
		p := fast.srcs[i].path
		if e.Size > int64(transfer.MaxChunk) {
			continue // sent by sendEntry: it leaves the folders as they were
		}
		want := path.Dir(p)
		if want == "." {
			want = ""
		}
		if got := strings.Join(fast.dirs.names, "/"); got != want || len(fast.dirs.fds) != len(fast.dirs.names)+1 {
			t.Errorf("after %s: folders open %q (%d descriptors), want %q", p, got, len(fast.dirs.fds), want)
		}
	}
	if err := sendAll(slow); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fastRec.Bytes(), slowRec.Bytes()) {
		t.Fatalf("sendSmall sent %d bytes, sendEntry %d: not the same", fastRec.Len(), slowRec.Len())
	}
	if fast.sum.Bytes != slow.sum.Bytes {
		t.Errorf("bytes counted: %d, want %d", fast.sum.Bytes, slow.sum.Bytes)
	}

	later := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name   string
		spoil  func(p string) error
		change bool // ErrSourceChanged
	}{
		{"touched", func(p string) error { return os.Chtimes(p, later, later) }, true},
		{"shrinks", func(p string) error { return os.Truncate(p, 100) }, true},
		{"grows", func(p string) error { return os.Truncate(p, 5000) }, true},
		{"vanishes", os.Remove, false},
		{"its folder vanishes", func(p string) error { return os.RemoveAll(filepath.Dir(p)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs [2]error
			for k, generic := range []bool{false, true} {
				dir, victim := build(t)
				s, _ := newTestSender(t, []event.Item{{Path: dir}}, generic)
				if err := tc.spoil(victim); err != nil {
					t.Fatal(err)
				}
				errs[k] = sendAll(s)
			}
			if errs[0] == nil || errs[1] == nil {
				t.Fatalf("sendSmall: %v; sendEntry: %v; want both to fail", errs[0], errs[1])
			}
			if tc.change != errors.Is(errs[0], transfer.ErrSourceChanged) {
				t.Errorf("sendSmall: %v; ErrSourceChanged: %v, want %v", errs[0], !tc.change, tc.change)
			}
			if errs[0].Error() != errs[1].Error() {
				t.Errorf("sendSmall: %q\nsendEntry: %q", errs[0], errs[1])
			}
		})
	}
}
