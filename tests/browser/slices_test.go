package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileSlices reads Blobs through worker.js's ferryFileSlices, which
// gui/page/wasm reads every picked File with, one reused buffer for all
// slices and one stream for all reads that follow each other: at every
// boundary of the slice size, and a slice size larger than the file;
// then with a read that goes back to the start, and with the reader
// closed after every read, each of which starts a new stream.
func TestFileSlices(t *testing.T) {
	b := openSlices(t)
	const size = 64 << 10
	for _, how := range []string{"", "again", "close"} {
		for _, n := range []int{1, size - 1, size, size + 1, 2*size + 500, 5 << 20} {
			for _, slice := range []int{size, 8 << 20} {
				var got string
				if err := b.EvalFor(30*time.Second, fmt.Sprintf("check(%d, %d, %q)", n, slice, how), &got); err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("ok %d", (n+slice-1)/slice)
				if got != want {
					t.Errorf("%d bytes in slices of %d (%q): %s, want %s", n, slice, how, got, want)
				}
			}
		}
	}
}

// TestFileSlicesChanged reads a picked file through ferryFileSlices and
// changes it on disk after the first slice: the read fails before the
// last slice is handed over, as a read per slice did at the next slice,
// though the reader's one stream of the file, opened before the change,
// reads on without a word. Unchanged, the same reads go through.
func TestFileSlicesChanged(t *testing.T) {
	b := openSlices(t)
	const size = 64 << 10
	for _, change := range []bool{false, true} {
		name := filepath.Join(t.TempDir(), "picked.bin")
		if err := os.WriteFile(name, pattern(5*size+100), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := b.Upload("#picked", name); err != nil {
			t.Fatal(err)
		}
		if err := b.Eval(fmt.Sprintf("goOn = null; window.picked = readPicked(%d); true", size), nil); err != nil {
			t.Fatal(err)
		}
		for waiting := true; waiting; {
			if err := b.Eval("goOn === null", &waiting); err != nil {
				t.Fatal(err)
			}
			if waiting {
				// Only the page knows when its first slice is in;
				// nothing to wait on but its state.
				time.Sleep(10 * time.Millisecond)
			}
		}
		if change {
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("changed"), 3*size); err != nil {
				t.Fatal(err)
			}
			f.Close()
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(name, later, later); err != nil {
				t.Fatal(err)
			}
		}
		var got string
		if err := b.EvalFor(30*time.Second, "goOn(), window.picked", &got); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("read %d", 5*size+100)
		if change && !strings.HasPrefix(got, "failed") {
			t.Errorf("changed after the first slice: %s, want a failed read", got)
		}
		if !change && got != want {
			t.Errorf("unchanged: %s, want %s", got, want)
		}
	}
}

// openSlices opens slices.html, which loads worker.js, on the LAN
// address in a fresh browser.
func openSlices(t *testing.T) *Browser {
	t.Helper()
	port := servePage(t, "slices.html")
	b := Start(t)
	if err := b.Open("http://" + LANAddr + port + "/slices.html"); err != nil {
		t.Fatal(err)
	}
	return b
}
