package secure

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzRecordReader feeds arbitrary bytes to the record reader: it must
// never panic, never return more plaintext than arrived, and fail with one
// of the stream's own errors or a responder's rejection (a zero length
// before the first record carries a reason: wrong code, busy, not paired).
func FuzzRecordReader(f *testing.F) {
	var key [32]byte
	mk := func() *recordCipher {
		rc, _ := newRecordCipherKey(AESGCM, key)
		return rc
	}
	// Seeds: real streams, so the fuzzer starts past the authentication.
	for _, n := range []int{0, 1, 100, MaxPlaintext + 1} {
		out := &memConn{r: bytes.NewReader(nil)}
		w := newConn(out, AESGCM, mk(), mk(), nil, &Config{})
		w.Write(bytes.Repeat([]byte{'a'}, n))
		w.CloseWrite()
		f.Add(out.w.Bytes())
	}
	f.Add([]byte{0, 0, 1})
	f.Add([]byte{0, 0})
	f.Add([]byte{0, 15, 1})
	f.Fuzz(func(t *testing.T, wire []byte) {
		in := &memConn{r: bytes.NewReader(wire)}
		r := newConn(in, AESGCM, mk(), mk(), nil, &Config{})
		if len(wire) > 4 {
			r.Prefetch(int(wire[0]) << 10)
		}
		got, err := io.ReadAll(r)
		if len(got) > len(wire) {
			t.Fatalf("%d bytes of plaintext from %d of wire", len(got), len(wire))
		}
		if err == nil {
			return
		}
		for _, s := range []error{ErrAuth, ErrMalformed, ErrTruncated, ErrTrailingData, ErrWrongCode, ErrCodeRetired, ErrCodesHeld, ErrBusy, ErrNotPaired} {
			if errors.Is(err, s) {
				return
			}
		}
		t.Fatalf("unexpected error kind: %v", err)
	})
}

// FuzzPreamble: any seven bytes either parse as this version's preamble
// or fail as not-Ferry or incompatible; a valid one round-trips.
func FuzzPreamble(f *testing.F) {
	p := makePreamble(ProtocolVersion, offerAESHardware)
	f.Add(p[:])
	p = makePreamble(ProtocolVersion, offerPaired|offerAESHardware)
	f.Add(p[:])
	p = makePreamble(ProtocolVersion+1, 0)
	f.Add(p[:])
	f.Add([]byte("GET / H"))
	f.Add([]byte("FERR"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parsePreamble(b)
		if err != nil {
			if !errors.Is(err, ErrNotFerry) && !errors.Is(err, ErrIncompatibleVersion) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if !bytes.Equal(got[:], b) || got.version() != ProtocolVersion {
			t.Fatalf("accepted %q as %q", b, got[:])
		}
		// Any offer byte is either chosen from or refused, never
		// ignored: an unknown bit is an error.
		if _, err := choose(got.last(), Auto, true); err == nil && got.last()&^offerKnown != 0 {
			t.Fatalf("offer %#x with unknown bits accepted", got.last())
		}
	})
}
