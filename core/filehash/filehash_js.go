//go:build js && wasm

package filehash

import (
	"sync"
	"syscall/js"

	"github.com/ferry-project/ferry/core/wire"
)

// On js/wasm (the browser page), a file's BLAKE3 is computed by
// blake3-wasm's WebAssembly build (BLAKE3's C code with WebAssembly SIMD)
// when the page's worker has it ready (gui/page/prims.js, which
// worker.js sets as self.ferryPrims; a browser without WebAssembly SIMD
// gets no hashNew there, and Go hashes). Its figures against this
// package's own, this crossing included, are in benches/results/
// 2026-12-05-page33-candidates.md. It
// is the same digest (filehash_js_test.go checks it against blake3.Sum256
// on both sides of every boundary, and every page transfer against the
// native peer's), so nothing else changes. Without ferryPrims, or for a
// file whose first write is small, it is this package's own Hasher.

// minPage is the first write from which a hash goes to the page's
// BLAKE3: below it the crossing and the state's round trip (1,912 bytes
// each way) cost more than the faster hash saves. The choice holds until
// Reset, since the two cannot share a state.
const minPage = 16 << 10

// hashMu guards prims' hashIn and hashOut, which every pageHash shares:
// Go on js/wasm may switch goroutines between a copy and the call that
// reads it.
var hashMu sync.Mutex

// pageHash is one hash's state in the page's BLAKE3: st, a Uint8Array of
// the C code's hasher, is copied in and out around each write, so that
// any number of Hashers share the one hasher in blake3.wasm's memory.
type pageHash struct {
	decided, on bool
	prims, st   js.Value
	in          js.Value // prims.hashIn
}

// write hashes p in the page's BLAKE3 if this hash is there, deciding at
// the first write of an empty hash (fresh); it reports false when the
// Go Hasher must hash p.
func (ph *pageHash) write(p []byte, fresh bool) bool {
	if !ph.decided {
		if !fresh || len(p) < minPage {
			ph.decided = true
			return false
		}
		ph.decided = true
		prims := js.Global().Get("ferryPrims")
		if prims.Type() != js.TypeObject || prims.Get("hashNew").Type() != js.TypeFunction {
			return false
		}
		ph.on, ph.prims = true, prims
		ph.in = prims.Get("hashIn")
		ph.st = prims.Call("hashNew")
	}
	if !ph.on {
		return false
	}
	hashMu.Lock()
	defer hashMu.Unlock()
	for len(p) > 0 {
		n := js.CopyBytesToJS(ph.in, p)
		if n == 0 {
			panic("filehash: the page's hashIn holds nothing") // invariant: 1 MiB of a memory that never grows
		}
		ph.prims.Call("hashWrite", ph.st, n)
		p = p[n:]
	}
	return true
}

func (ph *pageHash) sum(b []byte) ([]byte, bool) {
	if !ph.on {
		return nil, false
	}
	hashMu.Lock()
	defer hashMu.Unlock()
	ph.prims.Call("hashSum", ph.st)
	var out [wire.HashLen]byte
	js.CopyBytesToGo(out[:], ph.prims.Get("hashOut"))
	return append(b, out[:]...), true
}

func (ph *pageHash) reset() {
	*ph = pageHash{}
}
