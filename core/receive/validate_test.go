package receive

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// TestDuplicatesUnderFolding holds the case rule: two entries of one
// offer that a case-insensitive or normalizing file system would store
// as one name are refused, whatever the receiver's own file system.
func TestDuplicatesUnderFolding(t *testing.T) {
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	cases := []struct {
		a, b string
		dup  bool
	}{
		{"A", "a", true},
		{"report.TXT", "Report.txt", true},
		{nfc, nfd, true},                 // NFC and NFD é: one name on APFS, ext4 casefold
		{nfc, "CAF\u00c9", true},         // and under case
		{nfd, "CAFE\u0301", true},        //
		{"\u017f.txt", "s.txt", true},    // long s folds to s
		{"\u03c2", "\u03c3", true},       // final and ordinary sigma
		{"\u03c2", "\u03a3", true},       //
		{"\u0131", "I", true},            // dotless i: NTFS upper-cases it to I
		{"\u0131", "i", true},            //
		{"\u212a", "k", true},            // Kelvin sign folds to k
		{"\u212b", "\u00e5", true},       // Ångström sign is canonically Å
		{"stra\u00dfe", "STRASSE", true}, // ß folds to ss (NTFS would keep them apart)
		{"\ufb01le", "file", true},       // the fi ligature folds to fi
		{"\u0130", "i", false},           // İ folds to i + combining dot: another name
		{"a", "b", false},
		{"\u00e9", "e", false},
		{"\uff21", "A", false}, // fullwidth A is another letter on every file system
		{"1", "\u2460", false}, // ① is not 1 without compatibility folding, which no file system does
	}
	for _, c := range cases {
		for _, order := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			err := transfer.ValidateEntries([]event.Entry{{Path: order[0], Kind: event.KindFile}, {Path: order[1], Kind: event.KindFile}})
			if c.dup && !errors.Is(err, transfer.ErrRefusedPath) {
				t.Errorf("%+q then %+q accepted (%v)", order[0], order[1], err)
			}
			if !c.dup && err != nil {
				t.Errorf("%+q then %+q refused: %v", order[0], order[1], err)
			}
			// The same pair as folders, each holding a file, is one folder.
			err = transfer.ValidateEntries([]event.Entry{
				{Path: order[0], Kind: event.KindDir}, {Path: order[0] + "/x", Kind: event.KindFile},
				{Path: order[1], Kind: event.KindDir}, {Path: order[1] + "/y", Kind: event.KindFile},
			})
			if c.dup != errors.Is(err, transfer.ErrRefusedPath) {
				t.Errorf("folders %+q and %+q: %v", order[0], order[1], err)
			}
		}
	}
	// Deeper: a clash two levels down is a clash too.
	err := transfer.ValidateEntries([]event.Entry{
		{Path: "d", Kind: event.KindDir}, {Path: "d/" + nfc, Kind: event.KindFile}, {Path: "d/" + nfd, Kind: event.KindFile},
	})
	if !errors.Is(err, transfer.ErrRefusedPath) {
		t.Errorf("NFC and NFD in one folder accepted: %v", err)
	}
	if err := transfer.ValidateEntries([]event.Entry{{Path: "a", Kind: event.KindFile}, {Path: "a", Kind: event.KindFile}}); !errors.Is(err, transfer.ErrRefusedPath) {
		t.Errorf("the same path twice accepted: %v", err)
	}
}

// BenchmarkValidateEntries checks an offer of the largest legal size,
// ASCII and not, against a baseline of the same loop keyed the old way,
// by strings.ToLower (which is not case folding).
func BenchmarkValidateEntries(b *testing.B) {
	offer := func(name string) []event.Entry {
		entries := make([]event.Entry, 0, transfer.MaxEntries)
		for d := 0; len(entries) < transfer.MaxEntries; d++ {
			dir := fmt.Sprintf("%s %d", name, d)
			entries = append(entries, event.Entry{Path: dir, Kind: event.KindDir})
			for f := 0; f < 99 && len(entries) < transfer.MaxEntries; f++ {
				entries = append(entries, event.Entry{Path: fmt.Sprintf("%s/Photo %d.JPG", dir, f), Kind: event.KindFile})
			}
		}
		return entries
	}
	for _, c := range []struct{ name, folder string }{{"ascii", "Holiday"}, {"unicode", "Ferienfotos Zürich"}} {
		entries := offer(c.folder)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := transfer.ValidateEntries(entries); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/baseline-tolower", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				seen := make(map[string]int, len(entries))
				for i, e := range entries {
					if err := place.CheckPath(e.Path); err != nil {
						b.Fatal(err)
					}
					seen[strings.ToLower(e.Path)] = i
				}
			}
		})
	}
}

// TestHostileNamesAtTheReceiver sends issue 13's and issue 18's names in
// offers to a real receiver over loopback: each is refused with the
// refused-path code before anything is written or asked.
func TestHostileNamesAtTheReceiver(t *testing.T) {
	file := func(p string) event.Entry { return event.Entry{Path: p, Kind: event.KindFile, Size: 1, Mode: 0o644} }
	dir := func(p string) event.Entry { return event.Entry{Path: p, Kind: event.KindDir, Mode: 0o755} }
	cases := []struct {
		name    string
		entries []event.Entry
	}{
		{"right-to-left override", []event.Entry{file("invoice\u202Efdp.exe")}},
		{"C1 control", []event.Entry{file("a\u009b2Jb")}},
		{"zero-width non-joiner in the partial folder", []event.Entry{dir(".ferry\u200c-partial"), file(".ferry\u200c-partial/x")}},
		{"short name of the partial folder", []event.Entry{dir("FERRY-~1"), file("FERRY-~1/x")}},
		{"NFC and NFD", []event.Entry{file("caf\u00e9"), file("cafe\u0301")}},
		{"long s", []event.Entry{file("\u017f"), file("s")}},
		{"final sigma", []event.Entry{file("\u03c2"), file("\u03c3")}},
		{"folders under folding", []event.Entry{dir("Stra\u00dfe"), file("Stra\u00dfe/a"), dir("STRASSE"), file("STRASSE/b")}},
		{"what Windows cannot hold", []event.Entry{file("a<b>c")}},
		{"a pipe", []event.Entry{file("a|b")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			om := wire.Offer{Version: wire.Version, Name: "hostile", Entries: tc.entries}
			for _, e := range tc.entries {
				om.Total += e.Size
			}
			r.send(wire.MsgOffer, om.Encode())
			r.expect(wire.MsgHello)
			if ab := r.expectAbort(); transfer.CodeSentinels[ab.Code] != transfer.ErrRefusedPath {
				t.Errorf("abort code %d (%q), want refused path", ab.Code, ab.Reason)
			}
			if err := p.serveErr(t); !errors.Is(err, transfer.ErrRefusedPath) {
				t.Fatalf("receiver: %v, want a refused path", err)
			}
			if len(eventsOf[event.Offer](p.rev)) != 0 {
				t.Error("the person was asked about a refused offer")
			}
			if left := listDir(t, dest); len(left) != 0 {
				t.Errorf("the destination holds %v", left)
			}
		})
	}
}

// FuzzValidateEntries checks the offers the wire accepts (core/wire's
// FuzzOffer fuzzes their decoding) as a receiver does before it writes
// anything: validateEntries refuses only with ErrRefusedPath or
// ErrProtocol, and never panics.
func FuzzValidateEntries(f *testing.F) {
	for _, entries := range [][]event.Entry{
		{{Path: "photos", Kind: event.KindDir, Mode: 0o755}, {Path: "photos/a b ✓.jpg", Kind: event.KindFile, Size: 3}, {Path: "text.txt", Kind: event.KindText}},
		{{Path: "../x", Kind: event.KindFile, Size: 1}},
		{{Path: "A", Kind: event.KindFile}, {Path: "a", Kind: event.KindFile}},
		{{Path: "d/a", Kind: event.KindFile}, {Path: "d", Kind: event.KindDir}},
		{{Path: "caf\u00e9", Kind: event.KindFile}, {Path: "cafe\u0301", Kind: event.KindFile}},
	} {
		var total int64
		for _, e := range entries {
			total += e.Size
		}
		f.Add(wire.Offer{Version: wire.Version, Total: total, Entries: entries}.Encode())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := wire.DecodeOffer(b)
		if err != nil {
			return
		}
		if err := transfer.ValidateEntries(m.Entries); err != nil && !errors.Is(err, transfer.ErrRefusedPath) && !errors.Is(err, transfer.ErrProtocol) {
			t.Fatalf("validation error of unknown kind: %v", err)
		}
	})
}
