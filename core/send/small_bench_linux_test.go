package send

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// The sender's cost per small file, without the network and the
// receiver: a folder of 1,000 files of 4 KiB in 10 folders, read from
// TMPDIR (TMPDIR=/dev/shm for tmpfs, where the cost per file shows).
// Each benchmark has its baseline beside it: the general path (sendEntry
// through an *os.File, stated before and after reading) against
// sendSmall, and fs.WalkDir against the walk with descriptors.
//
//	TMPDIR=/dev/shm go test -run NONE -bench 'SmallFiles|Walk' -count 6 ./core/send

const benchFiles = 1000

func benchTree(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "tree")
	data := make([]byte, 4096)
	for i := range benchFiles {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%04d", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		data[0] = byte(i)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// discard is a stream that drops what is written to it.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Read([]byte) (int, error)    { return 0, io.EOF }
func (discard) Flush() error                { return nil }
func (discard) Prefetch(int) error          { return nil }
func (discard) CloseWrite() error           { return nil }
func (discard) Close() error                { return nil }
func (discard) NetConn() net.Conn           { return nil }

func BenchmarkSmallFiles(b *testing.B) {
	dir := benchTree(b)
	for _, path := range []string{"general", "small"} {
		b.Run(path, func(b *testing.B) {
			entries, srcs, err := buildManifest([]event.Item{{Path: dir}})
			if err != nil {
				b.Fatal(err)
			}
			s := &sender{entries: entries, srcs: srcs}
			s.Conn, s.Events, s.Timers = discard{}, &transfer.Emitter{}, &diag.Timers{}
			s.meter = transfer.NewMeter(s.Events, s.Timers, "", 0, len(entries))
			s.buf = make([]byte, wire.HeaderLen+transfer.MaxChunk)
			defer s.dirs.close()
			if path == "general" {
				s.hooks = &testhooks.Hooks{DiskRead: func(r io.Reader) io.Reader { return r }}
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(benchFiles * 4096)
			for b.Loop() {
				for i, e := range s.entries {
					if e.Kind == event.KindDir {
						continue
					}
					if err := s.sendEntry(ctx, i, e, nil, nil); err != nil {
						b.Fatal(err)
					}
				}
				s.dirs.close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchFiles), "ns/file")
		})
	}
}

func BenchmarkWalk(b *testing.B) {
	dir := benchTree(b)
	root, err := openItem(event.Item{Path: dir})
	if err != nil {
		b.Fatal(err)
	}
	for _, walk := range []string{"fswalk", "disk-one", "disk"} {
		b.Run(walk, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var m manifest
				switch walk {
				case "disk":
					_, err = m.addDiskFolder(root)
				case "disk-one": // the same walk on one goroutine
					err = m.walkDiskItem(root, root.fsys.(diskDir), 0)
				default:
					err = m.walkFS(root)
				}
				if err != nil || len(m.entries) != benchFiles+11 {
					b.Fatalf("%d entries, %v", len(m.entries), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchFiles), "ns/file")
		})
	}
}
