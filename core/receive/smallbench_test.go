package receive

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
)

// BenchmarkReceiveSmallFiles is a folder of 1,000 files of 4 KiB, 100 to
// a subfolder, sent over loopback into a destination on tmpfs when the
// machine has one (/dev/shm), where the cost per file is not hidden by a
// disk's writeback: a transfer per op, both ends in this process. Its
// allocations per op are both ends'; a memory profile focused on this
// package's functions tells the receiver's apart. The figure that
// compares with tar is benches/cmd/ferrybench's small figure.
func BenchmarkReceiveSmallFiles(b *testing.B) {
	const files, size = 1000, 4 << 10
	base := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	work, err := os.MkdirTemp(base, "ferry-smallbench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(work)
	src, dst := filepath.Join(work, "src", "tree"), filepath.Join(work, "dst")
	data := pattern(files*size, 7)
	for i := range files {
		testkit.WriteFile(b, filepath.Join(src, fmt.Sprintf("d%02d/f%03d.bin", i/100, i%100)), data[i*size:(i+1)*size])
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		b.Fatal(err)
	}
	sid, rid := ids(b)
	r, err := NewReceiver(ReceiverConfig{Dir: dst, Identity: rid, Listen: "127.0.0.1:0", Code: "246810", Name: "bench", Policy: AcceptAll})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	cfg := send.SendConfig{Addrs: []string{fmt.Sprintf("127.0.0.1:%d", r.Port())}, Code: r.Code(), Identity: sid,
		Name: "bench", Items: []event.Item{{Path: src}}, Timeout: 30 * time.Second}
	b.SetBytes(files * size)
	b.ReportAllocs()
	for b.Loop() {
		served := make(chan error, 1)
		go func() {
			_, err := r.Serve(b.Context())
			served <- err
		}()
		_, serr := send.Send(b.Context(), cfg)
		if rerr := <-served; serr != nil || rerr != nil {
			b.Fatalf("send: %v; receive: %v", serr, rerr)
		}
		b.StopTimer()
		if err := os.RemoveAll(filepath.Join(dst, "tree")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*files), "µs/file")
}
