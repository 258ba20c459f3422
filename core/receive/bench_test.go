package receive

import (
	"fmt"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/wire"
)

// The manifest codec's cost for an offer of 1,000 entries, a folder of
// photos as a person would send it: MB/s of encoded manifest, and the
// allocations per offer. BLAKE3 is BenchmarkHash (hash_test.go).
// benches/cmd/ferrybench runs these with the other microbenchmarks.

const benchOfferEntries = 1000

// benchOffer is 10 folders of 99 files each with realistic names, sizes
// and times, in the order buildManifest would list them.
func benchOffer() wire.Offer {
	m := wire.Offer{Version: wire.Version, Name: "bench sender"}
	when := time.Date(2026, 7, 14, 9, 30, 0, 123456789, time.UTC)
	for d := 0; len(m.Entries) < benchOfferEntries; d++ {
		dir := fmt.Sprintf("holiday/day %02d", d+1)
		m.Entries = append(m.Entries, event.Entry{Path: dir, Kind: event.KindDir, Mode: 0o755, ModTime: when})
		for f := 0; f < 99 && len(m.Entries) < benchOfferEntries; f++ {
			size := int64(2_000_000 + 7919*len(m.Entries))
			m.Entries = append(m.Entries, event.Entry{Path: fmt.Sprintf("%s/IMG_%04d.jpg", dir, len(m.Entries)),
				Kind: event.KindFile, Size: size, Mode: 0o644, ModTime: when.Add(time.Duration(len(m.Entries)) * time.Second)})
			m.Total += size
		}
	}
	return m
}

func BenchmarkOfferEncode(b *testing.B) {
	m := benchOffer()
	b.SetBytes(int64(len(m.Encode())))
	b.ReportAllocs()
	for b.Loop() {
		m.Encode()
	}
}

func BenchmarkOfferDecode(b *testing.B) {
	enc := benchOffer().Encode()
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wire.DecodeOffer(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// The benchmark's offer must be one the codec accepts and returns intact,
// or BenchmarkOfferDecode would time an early error.
func TestBenchOfferRoundTrips(t *testing.T) {
	m := benchOffer()
	got, err := wire.DecodeOffer(m.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != benchOfferEntries || got.Total != m.Total {
		t.Fatalf("decoded %d entries, %d bytes; want %d, %d", len(got.Entries), got.Total, benchOfferEntries, m.Total)
	}
	for i, e := range got.Entries {
		w := m.Entries[i]
		if e.Path != w.Path || e.Kind != w.Kind || e.Size != w.Size || e.Mode != w.Mode || !e.ModTime.Equal(w.ModTime) {
			t.Fatalf("entry %d: got %+v, want %+v", i, e, w)
		}
	}
}
