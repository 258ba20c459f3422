package benches

import (
	"bytes"
	"io"
	"testing"

	"github.com/ferry-project/ferry/core/secure"
)

// go test -run '^$' -bench . -benchmem ./benches/ runs these one after the
// other; the harness (cmd/ferrybench) runs the same functions interleaved
// and prints their ratios.

func BenchmarkMemcpy(b *testing.B)          { Memcpy(b) }
func BenchmarkAEADSealAESGCM(b *testing.B)  { AEADSeal(secure.AESGCM)(b) }
func BenchmarkFerrySealAESGCM(b *testing.B) { FerrySeal(secure.AESGCM)(b) }
func BenchmarkAEADOpenAESGCM(b *testing.B)  { AEADOpen(secure.AESGCM)(b) }
func BenchmarkFerryOpenAESGCM(b *testing.B) { FerryOpen(secure.AESGCM)(b) }
func BenchmarkAEADSealChaCha(b *testing.B)  { AEADSeal(secure.ChaChaPoly)(b) }
func BenchmarkFerrySealChaCha(b *testing.B) { FerrySeal(secure.ChaChaPoly)(b) }
func BenchmarkAEADOpenChaCha(b *testing.B)  { AEADOpen(secure.ChaChaPoly)(b) }
func BenchmarkFerryOpenChaCha(b *testing.B) { FerryOpen(secure.ChaChaPoly)(b) }

// BenchmarkAEADSealAESGCMAgain is BenchmarkAEADSealAESGCM run a second
// time, last: the harness divides it by the first in the same round, an
// A/A that shows how far two runs of one benchmark disagree.
func BenchmarkAEADSealAESGCMAgain(b *testing.B) { AEADSeal(secure.AESGCM)(b) }

// The record benchmarks must really round-trip: a check that records
// written through the detached in-memory socket open to the same bytes,
// so a broken socket cannot produce a fast figure.
func TestMemPairRoundTrip(t *testing.T) {
	for _, c := range []secure.Cipher{secure.AESGCM, secure.ChaChaPoly} {
		client, server, cm, sm, err := memPair(c)
		if err != nil {
			t.Fatal(err)
		}
		var wire []byte
		cm.sink = func(p []byte) { wire = append(wire, p...) }
		sm.src = func(dst []byte) (int, error) {
			if len(wire) == 0 {
				return 0, io.EOF
			}
			n := copy(dst, wire)
			wire = wire[n:]
			return n, nil
		}
		msg := Payload(3*recordBytes + 17)
		if _, err := client.Write(msg); err != nil {
			t.Fatal(err)
		}
		if err := client.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(server)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if !bytes.Equal(got, msg) {
			t.Fatalf("%v: read %d bytes, wrote %d (or content differs)", c, len(got), len(msg))
		}
	}
}
