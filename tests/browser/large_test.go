package browser

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
)

// zeroSink is a receiver's sink that keeps nothing: it counts the bytes
// of each file and checks that they are all zero (the sparse source),
// so a file larger than this machine's memory can go through the page
// without a disk to hold it twice.
type zeroSink struct {
	mu       sync.Mutex
	got      int64
	verified bool
	bad      error
}

func (s *zeroSink) Folder(transfer.Entry) error { return nil }
func (s *zeroSink) End(error)                   {}
func (s *zeroSink) File(transfer.Entry) (transfer.SinkFile, error) {
	return zeroFile{s}, nil
}

type zeroFile struct{ s *zeroSink }

func (f zeroFile) Write(p []byte) (int, error) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	for i, b := range p {
		if b != 0 && f.s.bad == nil {
			f.s.bad = fmt.Errorf("byte %d is %#x, not 0", f.s.got+int64(i), b)
		}
	}
	f.s.got += int64(len(p))
	return len(p), nil
}

func (f zeroFile) Close(verified bool) error {
	f.s.mu.Lock()
	f.s.verified = verified
	f.s.mu.Unlock()
	return nil
}

// TestPageSendsLarge: the page (its wasm in a worker, reading the
// picked File with FileReaderSync) sends a sparse file of 1 GiB
// (FERRY_PAGE_LARGE_GIB=4 for 4 GiB, about three minutes more here) and
// the renderer never holds it: its peak resident set stays under half
// the file's size. The receiver checks every byte and the BLAKE3 hash.
func TestPageSendsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: a large file through the page takes a minute or more (-short)")
	}
	gib := int64(1)
	if v := os.Getenv("FERRY_PAGE_LARGE_GIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("FERRY_PAGE_LARGE_GIB=%q: want a whole number of GiB", v)
		}
		gib = int64(n)
	}
	size := gib << 30
	b := Start(t)
	mux, id := pageServer(t, false)
	sink := &zeroSink{}
	r, err := receive.NewReceiver(receive.ReceiverConfig{Sink: sink, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()

	src := testkit.SparseFile(t, filepath.Join(t.TempDir(), "disk.img"), size)
	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	idle, err := b.PeakMemory()
	must(t, err)
	// The page moves what is picked into its own list and empties the
	// input; this test hands the input's files to the core's API itself,
	// so the page's handler is taken off first.
	must(t, b.Eval(`document.getElementById('files').onchange = null; true`, nil))
	must(t, b.Upload("#files", src))
	t0 := time.Now()
	var done map[string]any
	must(t, b.EvalFor(time.Duration(gib)*6*time.Minute, `ferry.send({code: '246810', name: 'Phone',
		files: document.getElementById('files').files, onEvent: () => {}})`, &done))
	took := time.Since(t0)
	must(t, <-served)
	peak, err := b.PeakMemory()
	must(t, err)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.got != size || !sink.verified || sink.bad != nil {
		t.Fatalf("received %d of %d bytes, verified %v, %v", sink.got, size, sink.verified, sink.bad)
	}
	t.Logf("%d GiB from the page in %v (%.0f MiB/s); renderer peak %d MiB (%d MiB once loaded)",
		gib, took.Round(time.Second), float64(size)/(1<<20)/took.Seconds(), peak.RendererPeak>>20, idle.RendererPeak>>20)
	if peak.RendererPeak > size/2 {
		t.Errorf("the renderer peaked at %d MiB sending %d MiB: the page held the file", peak.RendererPeak>>20, size>>20)
	}
}
