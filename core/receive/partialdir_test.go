package receive

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
)

// failAfter passes its first n writes through, then fails as a full disk.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n == 0 {
		return failingWriter{f.w.(*place.Partial).Name()}.Write(b)
	}
	f.n--
	return f.w.Write(b)
}

// TestPartialFolderTidied: the partial folder is gone after a transfer
// that left it empty, and stays while it holds a partial file to resume,
// this transfer's or another's.
func TestPartialFolderTidied(t *testing.T) {
	dir := t.TempDir()
	parts := filepath.Join(dir, place.PartialDir)
	src := filepath.Join(t.TempDir(), "a.bin")
	writeFile(t, src, pattern(4*transfer.MaxChunk, 6))

	// A full disk after one chunk: the partial file is kept, and so is
	// its folder.
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll, hooks: &testhooks.Hooks{
		DiskWrite: func(w io.Writer) io.Writer { return &failAfter{w: w, n: 1} },
	}})
	if _, serr, _, rerr := p.run(t.Context(), event.Item{Path: src}); !errors.Is(serr, transfer.ErrNoSpace) || !errors.Is(rerr, transfer.ErrNoSpace) {
		t.Fatalf("send: %v; receive: %v; want ErrNoSpace on both", serr, rerr)
	}
	if got, err := os.ReadDir(parts); err != nil || len(got) != 1 {
		t.Fatalf("after the failure, %s holds %v (%v), want the partial file", place.PartialDir, got, err)
	}

	// The resume completes: the folder is empty, and goes.
	p = newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll})
	ssum, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	if ssum.ResumedBytes == 0 {
		t.Error("the second transfer did not resume the partial file")
	}
	if _, err := os.Lstat(parts); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty %s was left behind: %v", place.PartialDir, err)
	}

	// Another transfer's partial file keeps the folder.
	other := filepath.Join(parts, "0123456789abcdef0123456789abcdef.part")
	writeFile(t, other, []byte("someone else's"))
	p = newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll, Overwrite: true})
	if _, serr, _, rerr := p.run(t.Context(), event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another transfer's partial file is gone: %v", err)
	}
}
