package receive

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
)

// TestNoAllocationPerChunk checks the design's "no allocation per record
// on the hot path" across both ends of real loopback transfers. The
// handshake, the offer and the events cost a fixed number of allocations,
// so the test compares a 16 MiB and a 64 MiB transfer: what the extra 192
// chunks allocated, divided by 192, is the cost of one chunk on the
// sender and the receiver together.
func TestNoAllocationPerChunk(t *testing.T) {
	small, large := int64(16<<20), int64(64<<20)
	m1, b1 := transferMallocs(t, small)
	m2, b2 := transferMallocs(t, large)
	chunks := float64((large - small) / transfer.MaxChunk)
	perChunk := float64(int64(m2)-int64(m1)) / chunks
	bytesPerChunk := float64(int64(b2)-int64(b1)) / chunks
	t.Logf("%d MiB: %d allocations, %d KiB; %d MiB: %d allocations, %d KiB; per chunk (both ends): %.2f allocations, %.0f bytes",
		small>>20, m1, b1>>10, large>>20, m2, b2>>10, perChunk, bytesPerChunk)
	if perChunk >= 1 {
		t.Errorf("%.2f allocations per chunk, want fewer than 1", perChunk)
	}
}

// transferMallocs sends a file of size zeros and returns the heap
// allocations (count and bytes) the process made meanwhile.
func transferMallocs(t *testing.T, size int64) (uint64, uint64) {
	t.Helper()
	src := testkit.SparseFile(t, filepath.Join(t.TempDir(), "zeros.bin"), size)
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	runtime.ReadMemStats(&after)
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}
