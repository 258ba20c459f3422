// Command sodiumsimd writes ChaCha20-Poly1305 (IETF) test vectors sealed by
// golang.org/x/crypto/chacha20poly1305, for check.mjs to compare a WebAssembly
// build of libsodium's AEAD against: random keys, nonces and AAD, plaintext
// lengths 0 to 70,000 with every length around the block sizes (64, 256, the
// SSE2 Poly1305's 32-byte steps) and 65,519, the page's largest record.
//
// Output, to stdout, per vector: u32 plaintext length, u32 AAD length, key
// (32), nonce (12), AAD, plaintext, ciphertext, tag (16); all little-endian.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"log"
	"os"

	"golang.org/x/crypto/chacha20poly1305"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("sodiumsimd: ")
	flag.Parse()

	var lengths []int
	for n := 0; n <= 1100; n++ {
		lengths = append(lengths, n)
	}
	for _, base := range []int{4096, 16384, 65536} {
		for d := -70; d <= 70; d++ {
			lengths = append(lengths, base+d)
		}
	}
	lengths = append(lengths, 65519, 69999, 70000)
	for i := 0; i < 100; i++ {
		var b [4]byte
		rand.Read(b[:])
		lengths = append(lengths, int(binary.LittleEndian.Uint32(b[:])%70001))
	}

	w := bufio.NewWriter(os.Stdout)
	for i, n := range lengths {
		key := make([]byte, chacha20poly1305.KeySize)
		nonce := make([]byte, chacha20poly1305.NonceSize)
		ad := make([]byte, i%97)
		msg := make([]byte, n)
		rand.Read(key)
		rand.Read(nonce)
		rand.Read(ad)
		rand.Read(msg)
		aead, err := chacha20poly1305.New(key)
		if err != nil {
			log.Fatal(err)
		}
		sealed := aead.Seal(nil, nonce, msg, ad)

		var hdr [8]byte
		binary.LittleEndian.PutUint32(hdr[0:], uint32(n))
		binary.LittleEndian.PutUint32(hdr[4:], uint32(len(ad)))
		for _, b := range [][]byte{hdr[:], key, nonce, ad, msg, sealed} {
			if _, err := w.Write(b); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d vectors", len(lengths))
}
