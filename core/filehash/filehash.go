// Package filehash computes the BLAKE3-256 digest that both ends of a
// transfer take of every file as it streams, without allocating: the
// digest is the one lukechampine.com/blake3 computes (its tests check
// it), so a hash is comparable with any BLAKE3 tool's. It owns nothing
// else: what is hashed, and when, is the sessions' business.
package filehash

import (
	"lukechampine.com/blake3/guts"

	"github.com/ferry-project/ferry/core/wire"
)

// group is the input guts.CompressBuffer hashes in one SIMD pass: 16
// BLAKE3 chunks of 1 KiB.
const group = guts.MaxSIMD * guts.ChunkSize

// Hasher computes BLAKE3-256, the same digest as lukechampine.com/blake3's
// Hasher (tests check it against blake3.Sum256), without allocating.
//
// blake3.Hasher.Write hashes a large write on a new goroutine per subtree
// and copies a short subtree into a fresh 16 KiB buffer: about 29 KiB of
// garbage and a dozen allocations per 256 KiB chunk, on both ends, which
// the design forbids on the hot path. Hasher instead feeds guts, the same
// module's building blocks, one 16-chunk group at a time on the caller's
// goroutine, straight from the caller's slice when it can: a stage timer
// around Write then also measures only this goroutine's work.
//
// The BLAKE3 tree is left-balanced, so complete groups are complete
// subtrees: stack holds, as in the reference design, the chaining value
// of at most one complete subtree per height (16·2^i chunks), and the
// bits of groups say which are occupied. A group is compressed only once
// a byte after it is known, since the last one must be finished as the
// root.
type Hasher struct {
	stack  [64][8]uint32
	groups uint64
	buf    [group]byte
	buflen int
	// page hashes in the browser page's BLAKE3 instead (filehash_js.go);
	// elsewhere it is empty and never takes a write.
	page pageHash
}

// New returns a Hasher with nothing written; its zero value is one too.
func New() *Hasher { return new(Hasher) }

// Write never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	n := len(p)
	if h.page.write(p, h.groups == 0 && h.buflen == 0) {
		return n, nil
	}
	for len(p) > 0 {
		if h.buflen == group {
			h.push(guts.CompressBuffer(&h.buf, group, &guts.IV, h.groups*guts.MaxSIMD, 0))
			h.buflen = 0
		}
		if h.buflen == 0 && len(p) > group {
			h.push(guts.CompressBuffer((*[group]byte)(p), group, &guts.IV, h.groups*guts.MaxSIMD, 0))
			p = p[group:]
			continue
		}
		c := copy(h.buf[h.buflen:], p)
		h.buflen += c
		p = p[c:]
	}
	return n, nil
}

// push adds a complete group's subtree, merging equal heights the way a
// binary counter carries.
func (h *Hasher) push(n guts.Node) {
	cv := guts.ChainingValue(n)
	i := 0
	for ; h.groups&(1<<i) != 0; i++ {
		cv = guts.ChainingValue(guts.ParentNode(h.stack[i], cv, &guts.IV, 0))
	}
	h.stack[i] = cv
	h.groups++
}

// Sum appends the 32-byte digest of everything written to b. It does not
// change the state.
func (h *Hasher) Sum(b []byte) []byte {
	if out, ok := h.page.sum(b); ok {
		return out
	}
	n := guts.CompressBuffer(&h.buf, h.buflen, &guts.IV, h.groups*guts.MaxSIMD, 0)
	for i := 0; i < 64; i++ {
		if h.groups&(1<<i) != 0 {
			n = guts.ParentNode(h.stack[i], guts.ChainingValue(n), &guts.IV, 0)
		}
	}
	n.Flags |= guts.FlagRoot
	out := guts.WordsToBytes(guts.CompressNode(n))
	return append(b, out[:wire.HashLen]...)
}

// Reset forgets everything written.
func (h *Hasher) Reset() {
	h.groups, h.buflen = 0, 0
	h.page.reset()
}
