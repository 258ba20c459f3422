package transfer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"
)

// TestAbortReasonHidesLocalPaths: when a file fails on the sender's disk,
// the sender's own error names it by its absolute path, but the reason
// the receiver is told names it only by the entry's relative path.
func TestAbortReasonHidesLocalPaths(t *testing.T) {
	cases := []struct {
		name string
		want error
		// spoil makes the sender's read of abs fail; it may set hooks.
		spoil func(p *pair, abs string)
	}{
		{"changed while read", ErrSourceChanged, func(p *pair, abs string) {
			p.sev.hook = func(ev Event) {
				if _, ok := ev.(Progress); ok {
					later := time.Now().Add(time.Hour)
					os.Chtimes(abs, later, later)
				}
			}
		}},
		{"ends early", ErrSourceChanged, func(p *pair, abs string) {
			p.send.hooks = &hooks{diskRead: func(io.Reader) io.Reader { return strings.NewReader("") }}
		}},
		{"read error", errPeerFailed, func(p *pair, abs string) {
			p.send.hooks = &hooks{diskRead: func(io.Reader) io.Reader {
				return iotest.ErrReader(&fs.PathError{Op: "read", Path: abs, Err: syscall.EIO})
			}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "home", "someone")
			abs := filepath.Join(root, "album", "2024", "photo.jpg")
			writeFile(t, abs, pattern(3*maxChunk, 4))
			p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
			tc.spoil(p, abs)
			_, serr, _, rerr := p.run(t.Context(), Item{Path: filepath.Join(root, "album")})
			if serr == nil || rerr == nil {
				t.Fatalf("send: %v; receive: %v; want both to fail", serr, rerr)
			}
			if !errors.Is(rerr, tc.want) {
				t.Errorf("receiver: %v, want %v", rerr, tc.want)
			}
			t.Logf("sender: %v", serr)
			t.Logf("receiver: %v", rerr)
			if !strings.Contains(serr.Error(), abs) {
				t.Errorf("the sender's own error does not name %s: %v", abs, serr)
			}
			if strings.Contains(rerr.Error(), root) {
				t.Errorf("the receiver learnt the sender's path %s: %v", root, rerr)
			}
			if !strings.Contains(rerr.Error(), "album/2024/photo.jpg") {
				t.Errorf("the receiver was not told which entry failed: %v", rerr)
			}
		})
	}
}

// TestAbortReasonHidesDestination: the receiver's destination folder is
// not told to the sender either.
func TestAbortReasonHidesDestination(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private", "downloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, src, []byte("hello"))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll})
	// The folder goes away after the receiver checked it: opening it for
	// the offer fails.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	_, serr, _, rerr := p.run(t.Context(), Item{Path: src})
	if serr == nil || rerr == nil {
		t.Fatalf("send: %v; receive: %v; want both to fail", serr, rerr)
	}
	t.Logf("sender: %v", serr)
	t.Logf("receiver: %v", rerr)
	if !strings.Contains(rerr.Error(), dir) {
		t.Errorf("the receiver's own error does not name %s: %v", dir, rerr)
	}
	if strings.Contains(serr.Error(), dir) {
		t.Errorf("the sender learnt the receiver's folder %s: %v", dir, serr)
	}
}

// failingWriter fails every write as a full disk does: os.File's own
// error, which names the file by the name it was opened with.
type failingWriter struct{ name string }

func (w failingWriter) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: w.name, Err: syscall.ENOSPC}
}

// TestNoSpaceAbortHidesDestination: a write that fails on the receiver's
// disk names the partial file by its full path in the receiver's own
// error, never in the reason the sender is told.
func TestNoSpaceAbortHidesDestination(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "private", "downloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "a.bin")
	writeFile(t, src, pattern(3*maxChunk, 5))
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll, hooks: &hooks{
		diskWrite: func(w io.Writer) io.Writer { return failingWriter{w.(*os.File).Name()} },
	}})
	_, serr, _, rerr := p.run(t.Context(), Item{Path: src})
	if !errors.Is(serr, ErrNoSpace) || !errors.Is(rerr, ErrNoSpace) {
		t.Fatalf("send: %v; receive: %v; want ErrNoSpace on both", serr, rerr)
	}
	t.Logf("sender: %v", serr)
	t.Logf("receiver: %v", rerr)
	if !strings.Contains(rerr.Error(), filepath.Join(dir, partialDir)) {
		t.Errorf("the receiver's own error does not name its partial file: %v", rerr)
	}
	if strings.Contains(serr.Error(), dir) {
		t.Errorf("the sender learnt the receiver's folder %s: %v", dir, serr)
	}
	if !strings.Contains(serr.Error(), "a.bin") || !strings.Contains(serr.Error(), "no space") {
		t.Errorf("the sender was not told which entry failed and why: %v", serr)
	}
}
