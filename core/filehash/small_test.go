package filehash

import (
	"bytes"
	"fmt"
	"testing"

	"lukechampine.com/blake3"
	"lukechampine.com/blake3/guts"
)

// smallSizes are the file sizes where the SIMD pass's fixed width shows:
// guts.CompressBuffer compresses 8 chunks (AVX2) or 16 (AVX-512)
// whatever the buffer holds, and a single chunk without SIMD.
var smallSizes = []int{1024, 2048, 3072, 4096, 8192, group}

// BenchmarkHashSmall hashes one small file (Reset, Write, Sum), the
// receiver's work per file of a folder of small files, beside the two
// other routes the library offers: its one-shot blake3.Sum256, and one
// guts.CompressChunk per chunk (no SIMD, no width to fill).
func BenchmarkHashSmall(b *testing.B) {
	for _, n := range smallSizes {
		p := pattern(n, 9)
		var out [32]byte
		b.Run(fmt.Sprintf("hasher/%d", n), func(b *testing.B) {
			h := New()
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				h.Reset()
				h.Write(p)
				h.Sum(out[:0])
			}
		})
		b.Run(fmt.Sprintf("blake3.Sum256/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				out = blake3.Sum256(p)
			}
		})
		b.Run(fmt.Sprintf("chunkwise/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				out = chunkwise(p)
			}
		})
	}
}

// TestChunkwiseMatchesBLAKE3 keeps the benchmark's baseline honest.
func TestChunkwiseMatchesBLAKE3(t *testing.T) {
	for _, n := range append([]int{0, 1, 1025, 5000}, smallSizes...) {
		p := pattern(n, 9)
		if got, want := chunkwise(p), blake3.Sum256(p); !bytes.Equal(got[:], want[:]) {
			t.Fatalf("%d bytes: got %x, want %x", n, got, want)
		}
	}
}

// chunkwise is BLAKE3-256 of p a chunk at a time through
// guts.CompressChunk, merged as Hasher merges its groups.
func chunkwise(p []byte) [32]byte {
	var stack [16][8]uint32
	var n uint64
	for len(p) > guts.ChunkSize {
		cv := guts.ChainingValue(guts.CompressChunk(p[:guts.ChunkSize], &guts.IV, n, 0))
		i := 0
		for ; n&(1<<i) != 0; i++ {
			cv = guts.ChainingValue(guts.ParentNode(stack[i], cv, &guts.IV, 0))
		}
		stack[i] = cv
		n++
		p = p[guts.ChunkSize:]
	}
	node := guts.CompressChunk(p, &guts.IV, n, 0)
	for i := range stack {
		if n&(1<<i) != 0 {
			node = guts.ParentNode(stack[i], guts.ChainingValue(node), &guts.IV, 0)
		}
	}
	node.Flags |= guts.FlagRoot
	out := guts.WordsToBytes(guts.CompressNode(node))
	return [32]byte(out[:32])
}
