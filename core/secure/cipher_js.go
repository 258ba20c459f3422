//go:build js && wasm

package secure

import (
	"crypto/cipher"
	"errors"
	"sync"
	"syscall/js"

	"golang.org/x/crypto/chacha20poly1305"
)

// On js/wasm (the browser page), the record stream's ChaCha20-Poly1305
// runs in libsodium's when the page's worker has it ready
// (gui/page/worker.js sets self.ferryPrims from prims.js): libsodium's
// own SIMD code built for WebAssembly SIMD (gui/page/simd), which seals
// and opens about 3.4 times as fast as x/crypto compiled to WebAssembly,
// which has neither SIMD nor assembly there, this crossing included
// (benches/results/2026-12-05-sodium-simd.md), or, in a build without
// it, npm libsodium's WebAssembly build, about 1.8 times
// (benches/results/2026-12-05-page-prims.md). A stream that starts
// before it is ready keeps x/crypto's to its end. The handshake stays flynn/noise's;
// only the records' AEAD moves, and it is the same function of key, nonce
// and bytes, so either end may use either implementation (the page
// tests, against a native x/crypto peer, and cipher_js_test.go check it).
// Without ferryPrims, or with primitives that have no cipher (prims.js
// leaves seal undefined then: a browser without WebAssembly SIMD given
// the SIMD build), it is x/crypto's, as everywhere else.

// pageAEAD is ChaCha20-Poly1305 in the worker's libsodium. A record
// crosses once each way: into a region of the cipher's own memory, sealed
// or opened there in place, and back. aeadMu guards that region, which
// every pageAEAD shares: the three calls of one record must not
// interleave with another goroutine's, and Go on js/wasm may switch
// goroutines between them.
type pageAEAD struct {
	prims js.Value
	// head and data are prims' views of the region (key and nonce, then
	// the record), kept so that a record costs no lookups.
	head, data js.Value
	// kn is the key and the nonce as libsodium reads them, copied in
	// with each record (44 bytes next to up to 65,535).
	kn [44]byte
	// fb seals what the region cannot hold (additional data, or more than
	// a record): nothing on the record stream's path.
	fb cipher.AEAD
}

var aeadMu sync.Mutex

var errPageAEAD = errors.New("chacha20poly1305: message authentication failed")

func newChaChaPoly(k []byte) (cipher.AEAD, error) {
	fb, err := chacha20poly1305.New(k)
	if err != nil {
		return nil, err
	}
	p := js.Global().Get("ferryPrims")
	if p.Type() != js.TypeObject || p.Get("seal").Type() != js.TypeFunction {
		return fb, nil
	}
	a := &pageAEAD{prims: p, fb: fb}
	a.views()
	copy(a.kn[:32], k)
	return a, nil
}

func (a *pageAEAD) NonceSize() int { return chacha20poly1305.NonceSize }
func (a *pageAEAD) Overhead() int  { return chacha20poly1305.Overhead }

func (a *pageAEAD) views() {
	a.head, a.data = a.prims.Get("aeadHead"), a.prims.Get("aeadData")
}

// load copies the key, nonce and b into the cipher's memory. A view of
// memory that has since grown reads as empty: then it asks for new views
// (another pageAEAD may have done so already) and tries once more. It
// reports false if b could not be put there whole.
func (a *pageAEAD) load(nonce, b []byte) bool {
	copy(a.kn[32:], nonce)
	for try := 0; ; try++ {
		if js.CopyBytesToJS(a.head, a.kn[:]) == len(a.kn) && js.CopyBytesToJS(a.data, b) == len(b) {
			return true
		}
		if try == 1 {
			return false
		}
		a.prims.Call("views")
		a.views()
	}
}

func (a *pageAEAD) Seal(dst, nonce, plaintext, ad []byte) []byte {
	n := len(plaintext)
	if len(ad) != 0 || n+chacha20poly1305.Overhead > maxRecord || len(nonce) != chacha20poly1305.NonceSize {
		return a.fb.Seal(dst, nonce, plaintext, ad)
	}
	ret, out := grow(dst, n+chacha20poly1305.Overhead)
	aeadMu.Lock()
	defer aeadMu.Unlock()
	if !a.load(nonce, plaintext) {
		return a.fb.Seal(dst, nonce, plaintext, ad)
	}
	m := a.prims.Call("seal", n).Int()
	js.CopyBytesToGo(out[:m], a.data)
	return ret
}

func (a *pageAEAD) Open(dst, nonce, ciphertext, ad []byte) ([]byte, error) {
	n := len(ciphertext)
	if len(ad) != 0 || n > maxRecord || len(nonce) != chacha20poly1305.NonceSize {
		return a.fb.Open(dst, nonce, ciphertext, ad)
	}
	if n < chacha20poly1305.Overhead {
		return nil, errPageAEAD
	}
	aeadMu.Lock()
	defer aeadMu.Unlock()
	if !a.load(nonce, ciphertext) {
		return a.fb.Open(dst, nonce, ciphertext, ad)
	}
	m := a.prims.Call("open", n).Int()
	if m < 0 {
		return nil, errPageAEAD
	}
	ret, out := grow(dst, m)
	js.CopyBytesToGo(out, a.data)
	return ret, nil
}

// grow extends dst by n bytes, as append would, and returns the whole
// slice and its last n bytes.
func grow(dst []byte, n int) (whole, tail []byte) {
	if total := len(dst) + n; cap(dst) >= total {
		whole = dst[:total]
	} else {
		whole = make([]byte, total)
		copy(whole, dst)
	}
	return whole, whole[len(dst):]
}
