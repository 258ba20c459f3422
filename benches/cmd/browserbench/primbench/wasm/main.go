//go:build js && wasm

// Command wasm is primbench's side in Go's WebAssembly: it sets
// primBench(name, mib), which runs one primitive over mib MiB and
// returns its MiB/s, for primbench's page to call in interleaved rounds.
package main

import (
	"syscall/js"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/ferry-project/ferry/core/filehash"
	"github.com/ferry-project/ferry/core/secure"
)

const record = secure.MaxPlaintext

// fileSlice is the size in which the page's send reads a picked File,
// and so the hash's writes there.
const fileSlice = 4 << 20

func main() {
	var key [32]byte
	x, _ := chacha20poly1305.New(key[:])
	buf := make([]byte, record+16)
	nonce := make([]byte, 12)
	data := make([]byte, fileSlice)
	for i := range data {
		data[i] = byte(i * 7)
	}
	sealed := x.Seal(nil, nonce, buf[:record], nil)

	// page does what core/secure's pageAEAD does for one record: key and
	// nonce and the record into libsodium's memory, the call, the result
	// out.
	page := func(op string, in []byte) int {
		p := js.Global().Get("ferryPrims")
		var kn [44]byte
		js.CopyBytesToJS(p.Get("aeadHead"), kn[:])
		js.CopyBytesToJS(p.Get("aeadData"), in)
		n := p.Call(op, len(in)).Int()
		if n >= 0 {
			js.CopyBytesToGo(buf[:n], p.Get("aeadData"))
		}
		return n
	}
	hash := func(mib int, onPage bool) {
		prims := js.Global().Get("ferryPrims")
		if !onPage {
			js.Global().Delete("ferryPrims")
		}
		h := filehash.New()
		h.Write(data) // decides, with or without ferryPrims
		js.Global().Set("ferryPrims", prims)
		for i := 1; i < mib*(1<<20)/fileSlice; i++ {
			h.Write(data)
		}
		h.Sum(nil)
	}
	runs := map[string]func(mib int){
		"seal x/crypto": func(mib int) {
			for i := 0; i < mib<<20/record; i++ {
				x.Seal(buf[:0], nonce, buf[:record], nil)
			}
		},
		"seal libsodium via Go": func(mib int) {
			for i := 0; i < mib<<20/record; i++ {
				page("seal", buf[:record])
			}
		},
		"open x/crypto": func(mib int) {
			for i := 0; i < mib<<20/record; i++ {
				copy(buf, sealed)
				if _, err := x.Open(buf[:0], nonce, buf[:len(sealed)], nil); err != nil {
					panic(err)
				}
			}
		},
		"open libsodium via Go": func(mib int) {
			for i := 0; i < mib<<20/record; i++ {
				if page("open", sealed) < 0 {
					panic("libsodium did not open x/crypto's record")
				}
			}
		},
		"BLAKE3 Go (filehash)":      func(mib int) { hash(mib, false) },
		"BLAKE3 blake3-wasm via Go": func(mib int) { hash(mib, true) },
	}
	js.Global().Set("primBench", js.FuncOf(func(_ js.Value, a []js.Value) any {
		f := runs[a[0].String()]
		if f == nil {
			return -1
		}
		mib := a[1].Int()
		t := time.Now()
		f(mib)
		return float64(mib) / time.Since(t).Seconds()
	}))
	js.Global().Call("primBenchReady")
	select {}
}
