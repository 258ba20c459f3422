// Command vectors writes what gui/page/simd/build.sh checks the page's
// SIMD ChaCha20-Poly1305 against, from golang.org/x/crypto's.
//
// By default it writes test vectors for check.mjs to stdout: random keys,
// nonces and additional data (0 to 96 bytes), plaintext lengths 0 to
// 1,100 every byte (the 64-byte blocks, the 4-block path from 256 bytes,
// the SSE2 Poly1305's 32-byte steps), 4,096, 16,384 and 65,536 ±70
// every byte, 65,519 (the page's largest record), 69,999, 70,000 and 100
// random lengths up to 70,000. Each vector: u32 plaintext length, u32
// additional data length (little-endian), key (32), nonce (12),
// additional data, plaintext, ciphertext, tag (16).
//
// With -known it writes instead the line of aead.js that sets
// ferryAEADKnown: a fixed key, nonce and additional data and 1,000 bytes
// of plaintext (the 4-block path and the tail), base64, with what
// x/crypto seals them to; prims.js seals and opens it at load and uses
// the module only if it gets the same.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"

	"golang.org/x/crypto/chacha20poly1305"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("vectors: ")
	known := flag.Bool("known", false, "write aead.js's known answer instead of the vectors")
	flag.Parse()
	if *known {
		writeKnown()
		return
	}
	w := bufio.NewWriter(os.Stdout)
	for i, n := range lengths() {
		key := random(chacha20poly1305.KeySize)
		nonce := random(chacha20poly1305.NonceSize)
		ad := random(i % 97)
		msg := random(n)
		var hdr [8]byte
		binary.LittleEndian.PutUint32(hdr[0:], uint32(n))
		binary.LittleEndian.PutUint32(hdr[4:], uint32(len(ad)))
		for _, b := range [][]byte{hdr[:], key, nonce, ad, msg, seal(key, nonce, msg, ad)} {
			if _, err := w.Write(b); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
}

func lengths() []int {
	var ns []int
	for n := 0; n <= 1100; n++ {
		ns = append(ns, n)
	}
	for _, base := range []int{4096, 16384, 65536} {
		for d := -70; d <= 70; d++ {
			ns = append(ns, base+d)
		}
	}
	ns = append(ns, 65519, 69999, 70000)
	for i := 0; i < 100; i++ {
		ns = append(ns, int(binary.LittleEndian.Uint32(random(4))%70001))
	}
	return ns
}

func writeKnown() {
	key := make([]byte, chacha20poly1305.KeySize)
	for i := range key {
		key[i] = byte(i)
	}
	nonce := []byte("ferry aead.js")[:chacha20poly1305.NonceSize]
	ad := []byte("the page's known answer")
	msg := make([]byte, 1000)
	for i := range msg {
		msg[i] = byte(i*7 + 3)
	}
	b64 := base64.StdEncoding.EncodeToString
	fmt.Printf("globalThis.ferryAEADKnown = {key: %q, nonce: %q, ad: %q, msg: %q, sealed: %q};\n",
		b64(key), b64(nonce), b64(ad), b64(msg), b64(seal(key, nonce, msg, ad)))
}

func seal(key, nonce, msg, ad []byte) []byte {
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		log.Fatal(err)
	}
	return aead.Seal(nil, nonce, msg, ad)
}

func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
