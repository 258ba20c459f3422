package benches

import (
	"crypto/aes"
	"crypto/cipher"
	"io"
	"testing"

	"github.com/ferry-project/ferry/core/secure"
	"golang.org/x/crypto/chacha20poly1305"
)

// One operation of every record benchmark is one full record: 65,519
// bytes of plaintext (secure.MaxPlaintext), so ns/op is the time per
// record, allocs/op the allocations per record and MB/s the plaintext
// rate.
const recordBytes = secure.MaxPlaintext

// openBatch is how many records the open benchmark seals, with the timer
// stopped, before opening them with the timer running. 16 records (1 MiB)
// stay in cache like a socket's freshly copied bytes do; 256 (16 MiB)
// made every open cache-cold and measured about 0.85 of this.
const openBatch = 16

// Memcpy is the floor under every record figure: copying one record's
// plaintext once, which Conn.Write and Conn.Read each do on top of the
// cipher.
func Memcpy(b *testing.B) {
	src, dst := Payload(recordBytes), make([]byte, recordBytes)
	b.SetBytes(recordBytes)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		copy(dst, src)
	}
}

func rawAEAD(c secure.Cipher) cipher.AEAD {
	key := Payload(32)
	if c == secure.ChaChaPoly {
		a, err := chacha20poly1305.New(key)
		if err != nil {
			panic(err)
		}
		return a
	}
	blk, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	a, err := cipher.NewGCM(blk)
	if err != nil {
		panic(err)
	}
	return a
}

// AEADSeal is the cipher alone: the standard library's (or x/crypto's)
// Seal of one record in place, nonce counter included. It is the ceiling
// for Ferry's sealing.
func AEADSeal(c secure.Cipher) func(*testing.B) {
	return func(b *testing.B) {
		a := rawAEAD(c)
		buf := make([]byte, recordBytes+a.Overhead())
		copy(buf, Payload(recordBytes))
		nonce := make([]byte, a.NonceSize())
		b.SetBytes(recordBytes)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			nonce[11] = byte(i)
			nonce[10] = byte(i >> 8)
			a.Seal(buf[:0], nonce, buf[:recordBytes], nil)
		}
	}
}

// AEADOpen is the cipher alone on the receiving side: Open of one sealed
// record into a separate buffer (opening in place would destroy the
// ciphertext the next iteration needs).
func AEADOpen(c secure.Cipher) func(*testing.B) {
	return func(b *testing.B) {
		a := rawAEAD(c)
		nonce := make([]byte, a.NonceSize())
		ct := a.Seal(nil, nonce, Payload(recordBytes), nil)
		dst := make([]byte, recordBytes)
		b.SetBytes(recordBytes)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := a.Open(dst[:0], nonce, ct, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// FerrySeal is Conn.Write of one full record: the copy of the caller's
// bytes into the batch buffer and the seal in place. The socket is an
// in-memory sink, so every fourth record's "socket write" costs a
// function call and nothing else.
func FerrySeal(c secure.Cipher) func(*testing.B) {
	return func(b *testing.B) {
		client, _, _, _, err := memPair(c)
		if err != nil {
			b.Fatal(err)
		}
		p := Payload(recordBytes)
		b.SetBytes(recordBytes)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := client.Write(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// FerryOpen is Conn.Read of one full record from an in-memory socket: the
// socket-read copy into the read buffer (what the kernel's copy would be),
// the open in place and the copy out to the caller. Records are sealed
// openBatch at a time with the timer stopped.
func FerryOpen(c secure.Cipher) func(*testing.B) {
	return func(b *testing.B) {
		client, server, cm, sm, err := memPair(c)
		if err != nil {
			b.Fatal(err)
		}
		var wire []byte
		cm.sink = func(p []byte) { wire = append(wire, p...) }
		p := Payload(recordBytes)
		off := 0
		sm.src = func(dst []byte) (int, error) {
			if off == len(wire) {
				b.StopTimer()
				wire, off = wire[:0], 0
				for range openBatch {
					if _, err := client.Write(p); err != nil {
						return 0, err
					}
				}
				if err := client.Flush(); err != nil {
					return 0, err
				}
				b.StartTimer()
			}
			n := copy(dst, wire[off:])
			off += n
			return n, nil
		}
		out := make([]byte, recordBytes)
		b.SetBytes(recordBytes)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := io.ReadFull(server, out); err != nil {
				b.Fatal(err)
			}
		}
	}
}
