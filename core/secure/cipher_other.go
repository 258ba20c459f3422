//go:build !(js && wasm)

package secure

import (
	"crypto/cipher"

	"golang.org/x/crypto/chacha20poly1305"
)

// newChaChaPoly is x/crypto's ChaCha20-Poly1305 everywhere but the page
// (cipher_js.go).
func newChaChaPoly(k []byte) (cipher.AEAD, error) { return chacha20poly1305.New(k) }
