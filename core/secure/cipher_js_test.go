//go:build js && wasm

package secure

import (
	"bytes"
	"crypto/rand"
	"syscall/js"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/ferry-project/ferry/core/internal/pageprims"
)

// TestPageAEADMatchesXCrypto: the page's ChaCha20-Poly1305 (libsodium's
// built for WebAssembly SIMD, or npm libsodium's in a build without it,
// through gui/page/prims.js) seals what x/crypto seals and opens what it
// opens, both ways, at every size a record can have up to the largest,
// in place and not; a changed byte anywhere fails to open.
func TestPageAEADMatchesXCrypto(t *testing.T) {
	t.Logf("the page's cipher: %s", pageprims.Use(t))
	var key [32]byte
	rand.Read(key[:])
	a, err := newChaChaPoly(key[:])
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.(*pageAEAD); !ok {
		t.Fatalf("newChaChaPoly made a %T, not the page's", a)
	}
	x, _ := chacha20poly1305.New(key[:])
	nonce := make([]byte, 12)
	msg := make([]byte, MaxPlaintext)
	rand.Read(msg)
	for _, n := range []int{0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1000, 4096, 65000, MaxPlaintext - 1, MaxPlaintext} {
		rand.Read(nonce)
		want := x.Seal(nil, nonce, msg[:n], nil)
		got := a.Seal(nil, nonce, msg[:n], nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: the page sealed differently", n)
		}
		buf := make([]byte, n, n+16)
		copy(buf, msg)
		ct := a.Seal(buf[:0], nonce, buf, nil)
		if !bytes.Equal(ct, want) || &ct[0] != &buf[:1][0] {
			t.Fatalf("%d bytes: sealing in place went wrong", n)
		}
		pt, err := a.Open(nil, nonce, want, nil)
		if err != nil || !bytes.Equal(pt, msg[:n]) {
			t.Fatalf("%d bytes: the page did not open x/crypto's record: %v", n, err)
		}
		pt, err = a.Open(ct[:0], nonce, ct, nil)
		if err != nil || !bytes.Equal(pt, msg[:n]) {
			t.Fatalf("%d bytes: opening in place went wrong: %v", n, err)
		}
		for _, at := range []int{0, len(want) / 2, len(want) - 1} {
			bad := append([]byte(nil), want...)
			bad[at] ^= 1
			if _, err := a.Open(nil, nonce, bad, nil); err == nil {
				t.Fatalf("%d bytes: a record changed at %d opened", n, at)
			}
		}
	}
	if _, err := a.Open(nil, nonce, make([]byte, 15), nil); err == nil {
		t.Fatal("a record shorter than its tag opened")
	}
	// Additional data, which records never carry, goes to x/crypto.
	ad := []byte("ad")
	if got, want := a.Seal(nil, nonce, msg[:100], ad), x.Seal(nil, nonce, msg[:100], ad); !bytes.Equal(got, want) {
		t.Fatal("sealing with additional data went wrong")
	}
}

// TestPageRecordStream runs the record cipher over the page's AEAD
// against one over x/crypto's: what one seals the other opens, in order.
func TestPageRecordStream(t *testing.T) {
	pageprims.Use(t)
	var key [32]byte
	rand.Read(key[:])
	page, err := newRecordCipherKey(ChaChaPoly, key)
	if err != nil {
		t.Fatal(err)
	}
	plain := &recordCipher{little: true}
	plain.aead, _ = chacha20poly1305.New(key[:])
	buf := make([]byte, maxRecord)
	for i := 0; i < 50; i++ {
		n := (i * 1337) % MaxPlaintext
		rand.Read(buf[:n])
		want := append([]byte(nil), buf[:n]...)
		from, to := page, plain
		if i%2 == 1 {
			from, to = plain, page
		}
		m, err := from.seal(buf, n)
		if err != nil {
			t.Fatal(err)
		}
		// keep the other direction's counter in step
		k, err := to.open(buf[:m])
		if err != nil || !bytes.Equal(buf[:k], want) {
			t.Fatalf("record %d (%d bytes) did not cross: %v", i, n, err)
		}
		from.n, to.n = max(from.n, to.n), max(from.n, to.n)
	}
}

func BenchmarkPageSeal(b *testing.B) {
	pageprims.Use(b)
	var key [32]byte
	a, _ := newChaChaPoly(key[:])
	x, _ := chacha20poly1305.New(key[:])
	buf := make([]byte, maxRecord)
	nonce := make([]byte, 12)
	for _, c := range []struct {
		name string
		a    interface {
			Seal(dst, nonce, plaintext, ad []byte) []byte
		}
	}{{"xcrypto", x}, {"page", a}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(MaxPlaintext)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.a.Seal(buf[:0], nonce, buf[:MaxPlaintext], nil)
			}
		})
	}
}

// TestPageAEADWithoutPageCipher: primitives without a cipher (prims.js
// in a browser without WebAssembly SIMD, given the SIMD build, still
// hashes) leave the records to x/crypto.
func TestPageAEADWithoutPageCipher(t *testing.T) {
	p := js.Global().Get("Object").New()
	p.Set("cipher", "")
	js.Global().Set("ferryPrims", p)
	t.Cleanup(func() { js.Global().Delete("ferryPrims") })
	var key [32]byte
	a, err := newChaChaPoly(key[:])
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.(*pageAEAD); ok {
		t.Fatal("newChaChaPoly used primitives that have no cipher")
	}
}
