package wire

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// The fuzz targets cover every parser of peer input. Each must never
// panic, must refuse with ErrProtocol, and what it accepts must survive
// a round trip. Whether an offer's paths are safe to write is
// core/transfer's check (its FuzzValidateEntries), not the wire's. Their
// seeds are the committed corpus under testdata/fuzz, built by
// seedCorpus (corpus_test.go).

func FuzzOffer(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeOffer(b)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		again, err := DecodeOffer(m.Encode())
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if len(again.Entries) != len(m.Entries) || again.Total != m.Total || again.Name != m.Name {
			t.Fatal("round trip changed the offer")
		}
		for i := range m.Entries {
			a, b := m.Entries[i], again.Entries[i]
			if a.Path != b.Path || a.Kind != b.Kind || a.Size != b.Size || a.Mode != b.Mode || !a.ModTime.Equal(b.ModTime) {
				t.Fatalf("entry %d changed: %+v -> %+v", i, a, b)
			}
		}
	})
}

func FuzzAnswer(f *testing.F) {
	entries := []event.Entry{
		{Path: "d", Kind: event.KindDir},
		{Path: "d/a", Kind: event.KindFile, Size: 10},
		{Path: "d/b", Kind: event.KindFile, Size: 0},
		{Path: "t", Kind: event.KindText, Size: 3},
		{Path: "d/c", Kind: event.KindFile, Size: 1 << 40},
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeAnswer(b, entries)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		last := -1
		for _, it := range m.Items {
			if it.Index <= last || entries[it.Index].Kind != event.KindFile || it.Offset > entries[it.Index].Size {
				t.Fatalf("accepted a bad item %+v", it)
			}
			if it.Action == ActHave && (it.Offset != entries[it.Index].Size || it.Hash != [HashLen]byte{}) {
				t.Fatalf("a have carries more than its one bit: %+v", it)
			}
			last = it.Index
		}
		if !bytes.Equal(m.Encode(), b) {
			// Varints have one canonical encoding here, so accepted input
			// must re-encode to itself.
			if _, err := DecodeAnswer(m.Encode(), entries); err != nil {
				t.Fatalf("re-decoding: %v", err)
			}
		}
	})
}

// fuzzHaves are the haves that FuzzHashes and FuzzMatches decode
// against: FuzzAnswer's file entries 1, 2 and 4.
var fuzzHaves = []int{1, 2, 4}

func FuzzHashes(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeHashes(b, fuzzHaves)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		if len(m.Items) != len(fuzzHaves) {
			t.Fatalf("accepted %d hashes for %d haves", len(m.Items), len(fuzzHaves))
		}
		for k, it := range m.Items {
			if it.Index != fuzzHaves[k] {
				t.Fatalf("hash %d for entry %d, want %d", k, it.Index, fuzzHaves[k])
			}
		}
		again, err := DecodeHashes(m.Encode(), fuzzHaves)
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		for k := range m.Items {
			if again.Items[k] != m.Items[k] {
				t.Fatalf("round trip changed hash %d", k)
			}
		}
	})
}

func FuzzMatches(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMatches(b, fuzzHaves)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		k := 0
		for _, i := range m.Indexes {
			for k < len(fuzzHaves) && fuzzHaves[k] < i {
				k++
			}
			if k == len(fuzzHaves) || fuzzHaves[k] != i {
				t.Fatalf("accepted %v: %d is not a have, or out of order", m.Indexes, i)
			}
			k++
		}
		again, err := DecodeMatches(m.Encode(), fuzzHaves)
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if fmt.Sprint(again.Indexes) != fmt.Sprint(m.Indexes) {
			t.Fatalf("round trip changed %v to %v", m.Indexes, again.Indexes)
		}
	})
}

// FuzzMessage covers the header and the decoder of every message type in
// the protocol table.
func FuzzMessage(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		typ, n, err := parseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("header error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		if n > typ.maxBody() {
			t.Fatalf("accepted %d bytes for %v", n, typ)
		}
		body := b[HeaderLen:]
		if len(body) > n {
			body = body[:n]
		}
		decode, ok := messageDecoders[typ]
		if !ok {
			t.Fatalf("%v passed the header check but is not in the table", typ)
		}
		if decode != nil {
			err = decode(body)
		}
		if err != nil && !errors.Is(err, ErrProtocol) {
			t.Fatalf("%v: error not wrapping ErrProtocol: %v", typ, err)
		}
	})
}
