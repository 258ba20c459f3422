package browser

import (
	"fmt"
	"testing"
	"time"
)

// TestFileSlices reads Blobs through worker.js's ferryFileSlices, which
// gui/page/wasm reads every picked File with, one reused buffer for all
// slices: at every boundary of the slice size, and a slice size larger
// than the file.
func TestFileSlices(t *testing.T) {
	port := servePage(t, "slices.html")
	b := Start(t)
	if err := b.Open("http://" + LANAddr + port + "/slices.html"); err != nil {
		t.Fatal(err)
	}
	const size = 64 << 10
	for _, n := range []int{1, size - 1, size, size + 1, 2*size + 500, 5 << 20} {
		for _, slice := range []int{size, 8 << 20} {
			var got string
			if err := b.EvalFor(30*time.Second, fmt.Sprintf("check(%d, %d)", n, slice), &got); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("ok %d", (n+slice-1)/slice)
			if got != want {
				t.Errorf("%d bytes in slices of %d: %s, want %s", n, slice, got, want)
			}
		}
	}
}
