package transfer

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// The fuzz targets cover every parser of peer input. Each must never
// panic, must refuse with ErrProtocol or ErrRefusedPath, and what it
// accepts must survive a round trip. Their seeds are the committed
// corpus under testdata/fuzz, built by seedCorpus (corpus_test.go).

func FuzzOffer(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeOffer(b)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		if err := validateEntries(m.Entries); err != nil && !errors.Is(err, ErrRefusedPath) && !errors.Is(err, ErrProtocol) {
			t.Fatalf("validation error of unknown kind: %v", err)
		}
		again, err := decodeOffer(m.encode())
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
	entries := []Entry{
		{Path: "d", Kind: KindDir},
		{Path: "d/a", Kind: KindFile, Size: 10},
		{Path: "d/b", Kind: KindFile, Size: 0},
		{Path: "t", Kind: KindText, Size: 3},
		{Path: "d/c", Kind: KindFile, Size: 1 << 40},
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeAnswer(b, entries)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error not wrapping ErrProtocol: %v", err)
			}
			return
		}
		last := -1
		for _, it := range m.Items {
			if it.Index <= last || entries[it.Index].Kind != KindFile || it.Offset > entries[it.Index].Size {
				t.Fatalf("accepted a bad item %+v", it)
			}
			if it.Action == actHave && (it.Offset != entries[it.Index].Size || it.Hash != [hashLen]byte{}) {
				t.Fatalf("a have carries more than its one bit: %+v", it)
			}
			last = it.Index
		}
		if !bytes.Equal(m.encode(), b) {
			// Varints have one canonical encoding here, so accepted input
			// must re-encode to itself.
			if _, err := decodeAnswer(m.encode(), entries); err != nil {
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
		m, err := decodeHashes(b, fuzzHaves)
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
		again, err := decodeHashes(m.encode(), fuzzHaves)
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
		m, err := decodeMatches(b, fuzzHaves)
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
		again, err := decodeMatches(m.encode(), fuzzHaves)
		if err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if fmt.Sprint(again.Indexes) != fmt.Sprint(m.Indexes) {
			t.Fatalf("round trip changed %v to %v", m.Indexes, again.Indexes)
		}
	})
}

// messageDecoders decodes the body of each message type of the protocol
// table (protocol.go), as the end that reads it would; nil for a type
// with no body to decode (a data chunk is bytes of a file). Keyed by
// every row: TestProtocolTable fails when a row has no entry here.
var messageDecoders = map[msgType]func(body []byte) error{
	msgHello: func(b []byte) error { _, err := decodeHello(b); return err },
	msgOffer: func(b []byte) error { _, err := decodeOffer(b); return err },
	msgAnswer: func(b []byte) error {
		_, err := decodeAnswer(b, []Entry{{Path: "a", Kind: KindFile, Size: 10}, {Path: "b", Kind: KindFile, Size: 3}})
		return err
	},
	msgBegin:   func(b []byte) error { _, err := decodeBegin(b); return err },
	msgData:    nil,
	msgEnd:     func(b []byte) error { _, err := decodeEnd(b); return err },
	msgSkip:    func(b []byte) error { _, err := decodeSkip(b); return err },
	msgConfirm: func(b []byte) error { _, err := decodeConfirm(b, 10); return err },
	msgFinish:  nil,
	msgDone:    func(b []byte) error { _, err := decodeDone(b); return err },
	msgAbort: func(b []byte) error {
		m, err := decodeAbort(b)
		if err == nil {
			_ = peerAbortError("peer", m)
		}
		return err
	},
	msgKeepalive: nil,
	msgHashes:    func(b []byte) error { _, err := decodeHashes(b, fuzzHaves); return err },
	msgMatches:   func(b []byte) error { _, err := decodeMatches(b, fuzzHaves); return err },
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
		body := b[headerLen:]
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
