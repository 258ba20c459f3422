//go:build js && wasm

package filehash

import (
	"bytes"
	"syscall/js"
	"testing"

	"lukechampine.com/blake3"

	"github.com/ferry-project/ferry/core/internal/pageprims"
)

// hashIO is the piece in which a write crosses to the page's BLAKE3
// (gui/page/prims.js).
const hashIO = 1 << 20

// TestPageHasherMatchesBLAKE3: with the page's BLAKE3 (blake3-wasm,
// through gui/page/prims.js) the Hasher's digest is still
// blake3.Sum256's, across this package's boundaries and the page's own
// (the first write that goes to the page, the piece a write crosses in).
func TestPageHasherMatchesBLAKE3(t *testing.T) {
	pageprims.Use(t)
	sizes := []int{0, 1, 1025, group + 1, minPage - 1, minPage, minPage + 1, 3*group + 500,
		maxChunk - 1, maxChunk, maxChunk + 1, hashIO - 1, hashIO, hashIO + 1, 2*hashIO + 777, 9*hashIO + 777}
	writes := []int{1000, group, minPage - 1, minPage, maxChunk, hashIO - 1, hashIO, hashIO + 1, 1 << 30}
	checkMatchesBLAKE3(t, sizes, writes)
}

// TestPageHashersApart: hashes in the page's BLAKE3 keep their own state
// however their writes interleave, and a write to one after another's
// Sum changes nothing of the other.
func TestPageHashersApart(t *testing.T) {
	pageprims.Use(t)
	a, b := New(), New()
	da, db := pattern(3*maxChunk+5, 1), pattern(2*maxChunk+9, 2)
	for i := 0; i < 3; i++ {
		a.Write(da[i*maxChunk : min((i+1)*maxChunk, len(da))])
		if i < 2 {
			b.Write(db[i*maxChunk : (i+1)*maxChunk])
		}
		a.Sum(nil)
	}
	a.Write(da[3*maxChunk:])
	b.Write(db[2*maxChunk:])
	wa, wb := blake3.Sum256(da), blake3.Sum256(db)
	if !a.page.on || !b.page.on {
		t.Fatal("the hashes did not go to the page's BLAKE3")
	}
	if !bytes.Equal(a.Sum(nil), wa[:]) || !bytes.Equal(b.Sum(nil), wb[:]) {
		t.Fatal("interleaved hashes got in each other's way")
	}
}

// TestPageHasherWithoutPageHash: primitives without a hash (prims.js in
// a browser without WebAssembly SIMD: the cipher alone) leave the hash
// to this package's own Hasher, with the same digest.
func TestPageHasherWithoutPageHash(t *testing.T) {
	js.Global().Set("ferryPrims", js.Global().Get("Object").New())
	t.Cleanup(func() { js.Global().Delete("ferryPrims") })
	d := pattern(2*maxChunk+3, 3)
	h := New()
	h.Write(d)
	if h.page.on {
		t.Fatal("the hash went to a page BLAKE3 that is not there")
	}
	if want := blake3.Sum256(d); !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatal("the digest is not blake3.Sum256's")
	}
}

func BenchmarkPageHash(b *testing.B) {
	pageprims.Use(b)
	chunk := pattern(4<<20, 5)
	b.Run("go", func(b *testing.B) {
		h := New()
		h.page.decided = true // and not on: this package's own
		b.SetBytes(int64(len(chunk)))
		b.ReportAllocs()
		for b.Loop() {
			h.Write(chunk)
		}
	})
	b.Run("page", func(b *testing.B) {
		h := New()
		b.SetBytes(int64(len(chunk)))
		b.ReportAllocs()
		for b.Loop() {
			h.Write(chunk)
		}
	})
}
