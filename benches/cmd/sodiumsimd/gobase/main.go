//go:build js && wasm

// Command gobase is bench.mjs's baseline: golang.org/x/crypto's
// ChaCha20-Poly1305 in Go's own WebAssembly, as the page runs it without a
// library, sealing and opening the same 65,519-byte records in place. It
// sets globalThis.ferryGoSeal(n) and ferryGoOpen(n), each doing n records,
// and stays alive for bench.mjs to call them between the other cases.
package main

import (
	"syscall/js"

	"golang.org/x/crypto/chacha20poly1305"
)

const record = 65519

func main() {
	key := make([]byte, chacha20poly1305.KeySize)
	nonce := make([]byte, chacha20poly1305.NonceSize)
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		panic(err)
	}
	src := make([]byte, record)
	for i := range src {
		src[i] = byte(i * 7)
	}
	buf := make([]byte, record+aead.Overhead())
	sealed := aead.Seal(nil, nonce, src, nil)

	js.Global().Set("ferryGoSeal", js.FuncOf(func(this js.Value, args []js.Value) any {
		for i := args[0].Int(); i > 0; i-- {
			copy(buf, src)
			aead.Seal(buf[:0], nonce, buf[:record], nil)
		}
		return nil
	}))
	js.Global().Set("ferryGoOpen", js.FuncOf(func(this js.Value, args []js.Value) any {
		for i := args[0].Int(); i > 0; i-- {
			copy(buf, sealed)
			if _, err := aead.Open(buf[:0], nonce, buf, nil); err != nil {
				panic(err)
			}
		}
		return nil
	}))
	select {}
}
