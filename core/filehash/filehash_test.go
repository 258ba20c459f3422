package filehash

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/ferry-project/ferry/core/wire"
	"lukechampine.com/blake3"
)

// TestHasherMatchesBLAKE3 crosses every boundary the hasher has (a block,
// a chunk, a group of 16 chunks, a data chunk) with writes of several
// sizes, against the reference implementation.
func TestHasherMatchesBLAKE3(t *testing.T) {
	sizes := []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049,
		group - 1, group, group + 1, 2 * group, 2*group + 1, 3*group + 500,
		16*group - 1, 16 * group, 16*group + 1, 17*group + 5,
		maxChunk - 1, maxChunk, maxChunk + 1, 3*maxChunk + 12345}
	writes := []int{1, 7, 1000, 1024, 4096, group - 3, group, group + 1, maxChunk, 1 << 30}
	checkMatchesBLAKE3(t, sizes, writes)
}

// checkMatchesBLAKE3 hashes the first n bytes of a pattern, for each n
// in sizes, in writes of each size in writes, and checks Sum against
// blake3.Sum256: once, after Sum and one more byte, and after Reset.
func checkMatchesBLAKE3(t *testing.T, sizes, writes []int) {
	data := pattern(slices.Max(sizes), 3)
	for _, n := range sizes {
		want := blake3.Sum256(data[:n])
		for _, w := range writes {
			if w < 64 && n > 4*group {
				continue // slow and adds nothing the larger sizes miss
			}
			h := New()
			for p := data[:n]; len(p) > 0; {
				k := min(w, len(p))
				h.Write(p[:k])
				p = p[k:]
			}
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%d bytes in writes of %d: got %x, want %x", n, w, got, want)
			}
			// Sum leaves the state alone: more bytes continue the stream.
			h.Write([]byte("x"))
			if got, want := h.Sum(nil), blake3.Sum256(append(append([]byte{}, data[:n]...), 'x')); !bytes.Equal(got, want[:]) {
				t.Fatalf("%d bytes, then Sum, then one more: got %x, want %x", n, got, want)
			}
			h.Reset()
			h.Write(data[:n])
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%d bytes after Reset: got %x, want %x", n, got, want)
			}
		}
	}
}

func FuzzHasher(f *testing.F) {
	f.Add([]byte("hello"), uint16(3))
	f.Add(pattern(group+1, 1), uint16(1024))
	f.Add(pattern(5*group+77, 2), uint16(group-1))
	f.Fuzz(func(t *testing.T, data []byte, w uint16) {
		want := blake3.Sum256(data)
		h := New()
		step := int(w) + 1
		for p := data; len(p) > 0; {
			k := min(step, len(p))
			h.Write(p[:k])
			p = p[k:]
		}
		if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
			t.Fatalf("%d bytes in writes of %d: got %x, want %x", len(data), step, got, want)
		}
	})
}

// BenchmarkHash compares the hasher with blake3.Hasher on the transfer's
// data chunks.
func BenchmarkHash(b *testing.B) {
	chunk := pattern(maxChunk, 5)
	for _, bc := range []struct {
		name string
		h    interface {
			Write([]byte) (int, error)
			Reset()
		}
	}{{"blake3.Hasher", blake3.New(wire.HashLen, nil)}, {"hasher", New()}} {
		b.Run(fmt.Sprintf("%s/chunk=%d", bc.name, maxChunk), func(b *testing.B) {
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			for b.Loop() {
				bc.h.Write(chunk)
			}
		})
	}
}

// maxChunk is the size of a transfer's data chunks, the writes a
// session hashes.
const maxChunk = wire.MaxData

// pattern returns n bytes that differ at every offset of a chunk.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}
