//go:build js && wasm

package filehash

import (
	"sync"
	"syscall/js"

	"github.com/ferry-project/ferry/core/wire"
)

// On js/wasm (the browser page), a file's BLAKE3 is computed by
// hash-wasm's WebAssembly build when the page's worker has it ready
// (gui/page/prims.js, which worker.js sets as self.ferryPrims): in
// Chromium it takes about three quarters of the CPU that guts compiled
// to WebAssembly takes, this crossing included (benches/results/
// 2026-12-05-page-prims.md). It
// is the same digest (filehash_js_test.go checks it against blake3.Sum256
// on both sides of every boundary, and every page transfer against the
// native peer's), so nothing else changes. Without ferryPrims, or for a
// file whose first write is small, it is this package's own Hasher.

// minPage is the first write from which a hash goes to the page's
// BLAKE3: below it the crossing and the state's round trip (about 2 KiB
// each way) cost more than the faster hash saves. The choice holds until
// Reset, since the two cannot share a state.
const minPage = 16 << 10

// hashMu guards prims' hashIn and hashOut, which every pageHash shares:
// Go on js/wasm may switch goroutines between a copy and the call that
// reads it.
var hashMu sync.Mutex

// pageHash is one hash's state in the page's BLAKE3: st, a Uint8Array of
// hash-wasm's saved state, is loaded and saved around each write, so
// that any number of Hashers share the one hash-wasm instance.
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
		if prims.Type() != js.TypeObject {
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
			panic("filehash: the page's hashIn holds nothing") // invariant: a plain 1 MiB array
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
