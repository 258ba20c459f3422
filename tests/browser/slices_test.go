package browser

import (
	"fmt"
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
	port := servePage(t, "slices.html")
	b := Start(t)
	if err := b.Open("http://" + LANAddr + port + "/slices.html"); err != nil {
		t.Fatal(err)
	}
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
