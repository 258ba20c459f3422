package transfer

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/place"
)

func TestHostileOffers(t *testing.T) {
	file := func(p string) Entry { return Entry{Path: p, Kind: KindFile, Size: 1, Mode: 0o644} }
	dir := func(p string) Entry { return Entry{Path: p, Kind: KindDir, Mode: 0o755} }
	long := strings.Repeat("d", 200)
	var deep []Entry
	for p := long; len(p) <= MaxPathBytes+200; p += "/" + long {
		deep = append(deep, dir(p))
	}
	cases := []struct {
		name    string
		entries []Entry
		plant   func(t *testing.T, dest, outside string)
		want    error
	}{
		{"dotdot", []Entry{file("../x")}, nil, ErrRefusedPath},
		{"nested dotdot", []Entry{dir("a"), file("a/../../x")}, nil, ErrRefusedPath},
		{"absolute", []Entry{file("/etc/x")}, nil, ErrRefusedPath},
		{"drive letter", []Entry{file(`C:\x`)}, nil, ErrRefusedPath},
		{"backslash dotdot", []Entry{file(`x\..\y`)}, nil, ErrRefusedPath},
		{"NUL byte", []Entry{file("a\x00b")}, nil, ErrRefusedPath},
		{"dot", []Entry{file(".")}, nil, ErrRefusedPath},
		{"dotdot alone", []Entry{dir("..")}, nil, ErrRefusedPath},
		{"dot inside", []Entry{dir("a"), file("a/./b")}, nil, ErrRefusedPath},
		{"empty component", []Entry{dir("a"), file("a//b")}, nil, ErrRefusedPath},
		{"name over 255 bytes", []Entry{file(strings.Repeat("n", 256))}, nil, ErrRefusedPath},
		{"path over 4096 bytes", deep, nil, ErrProtocol},
		{"CON", []Entry{file("CON")}, nil, ErrRefusedPath},
		{"nul.txt", []Entry{file("nul.txt")}, nil, ErrRefusedPath},
		{"COM1", []Entry{file("com1")}, nil, ErrRefusedPath},
		{"LPT9.log", []Entry{file("LPT9.log")}, nil, ErrRefusedPath},
		{"AUX in folder", []Entry{dir("a"), dir("a/Aux")}, nil, ErrRefusedPath},
		{"PRN", []Entry{file("PRN")}, nil, ErrRefusedPath},
		{"trailing dot", []Entry{file("x.")}, nil, ErrRefusedPath},
		{"trailing space", []Entry{file("x ")}, nil, ErrRefusedPath},
		{"partial folder", []Entry{dir(place.PartialDir), file(place.PartialDir + "/x")}, nil, ErrRefusedPath},
		{"not UTF-8", []Entry{file("a\xffb")}, nil, ErrProtocol},
		{"same path twice", []Entry{file("a.txt"), file("a.txt")}, nil, ErrRefusedPath},
		{"case only", []Entry{file("Photo.JPG"), file("photo.jpg")}, nil, ErrRefusedPath},
		{"parent not offered", []Entry{file("a/b")}, nil, ErrProtocol},
		{"folder with size", []Entry{{Path: "a", Kind: KindDir, Size: 5}}, nil, ErrProtocol},
		{"unknown kind", []Entry{{Path: "a", Kind: 9}}, nil, ErrProtocol},
		{"text over limit", []Entry{{Path: "t.txt", Kind: KindText, Size: MaxTextBytes + 1}}, nil, ErrProtocol},
		{"more than the disk", []Entry{{Path: "big", Kind: KindFile, Size: 1 << 60}}, nil, ErrNoSpace},
		{"size sum overflows", []Entry{{Path: "a", Kind: KindFile, Size: math.MaxInt64/2 + 1}, {Path: "b", Kind: KindFile, Size: math.MaxInt64/2 + 1}}, nil, ErrProtocol},
		{"symlink out of the destination", []Entry{dir("link"), file("link/passwd")},
			func(t *testing.T, dest, outside string) {
				if err := os.Symlink(outside, filepath.Join(dest, "link")); err != nil {
					t.Fatal(err)
				}
			}, ErrRefusedPath},
		{"nested symlink", []Entry{dir("a"), dir("a/b"), file("a/b/x")},
			func(t *testing.T, dest, outside string) {
				os.Mkdir(filepath.Join(dest, "a"), 0o755)
				if err := os.Symlink(outside, filepath.Join(dest, "a", "b")); err != nil {
					t.Fatal(err)
				}
			}, ErrRefusedPath},
		{"partial folder is a symlink", []Entry{file("x")},
			func(t *testing.T, dest, outside string) {
				if err := os.Symlink(outside, filepath.Join(dest, place.PartialDir)); err != nil {
					t.Fatal(err)
				}
			}, nil}, // refused when the first file is opened: see below
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dest := filepath.Join(base, "dest")
			outside := filepath.Join(base, "outside")
			os.Mkdir(dest, 0o755)
			os.Mkdir(outside, 0o755)
			if tc.plant != nil {
				tc.plant(t, dest, outside)
			}
			before := listDir(t, dest)
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			om := offerMsg{Version: protoVersion, Name: "hostile", Entries: tc.entries}
			for _, e := range tc.entries {
				if om.Total > math.MaxInt64-e.Size {
					om.Total = 1 // the entries overflow: any total will do
					break
				}
				om.Total += e.Size
			}
			r.send(msgOffer, om.encode())
			r.expect(msgHello)
			want := tc.want
			if want == nil {
				// The offer is fine; the planted link stops the first write.
				r.expect(msgAnswer)
				r.send(msgBegin, beginMsg{Index: 0}.encode())
				want = ErrRefusedPath
			}
			ab := r.expectAbort()
			if codeSentinels[ab.Code] != want {
				t.Errorf("abort code %d (%q), want the code of %v", ab.Code, ab.Reason, want)
			}
			err := p.serveErr(t)
			if !errors.Is(err, want) {
				t.Fatalf("receiver: %v, want %v", err, want)
			}
			t.Logf("refused: %v", err)
			if after := listDir(t, dest); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("destination changed: %v -> %v", before, after)
			}
			if out, _ := os.ReadDir(outside); len(out) != 0 {
				t.Errorf("written outside the destination: %v", out)
			}
			if out, _ := os.ReadDir(base); len(out) != 2 {
				t.Errorf("written next to the destination: %v", out)
			}
		})
	}
}

// TestHostileStructure covers offers that break the wire rules before
// any entry is looked at.
func TestHostileStructure(t *testing.T) {
	var e enc
	e.u8(protoVersion)
	e.str("x")
	e.uvarint(5_000_000)
	e.int64(0)
	millions := e.bytes()

	var e2 enc
	e2.u8(protoVersion)
	e2.str("x")
	e2.uvarint(1)
	e2.int64(5) // declares 5 bytes, entry has 1
	e2.u8(uint8(KindFile))
	e2.str("a")
	e2.int64(1)
	e2.uvarint(0o644)
	e2.varint(0)
	e2.uvarint(0)
	lyingTotal := e2.bytes()

	var e3 enc
	e3.u8(protoVersion)
	e3.str("x")
	e3.uvarint(1)
	e3.uvarint(1 << 63)
	e3.u8(uint8(KindFile))
	e3.str("a")
	e3.uvarint(1 << 63) // a negative size, once signed
	e3.uvarint(0o644)
	e3.varint(0)
	e3.uvarint(0)
	negative := e3.bytes()

	cases := []struct {
		name string
		send func(r *rawPeer)
	}{
		{"millions of entries", func(r *rawPeer) { r.send(msgOffer, millions) }},
		{"manifest over the cap", func(r *rawPeer) { r.sendHeader(msgOffer, MaxManifestBytes+1) }},
		{"total that lies", func(r *rawPeer) { r.send(msgOffer, lyingTotal) }},
		{"negative size", func(r *rawPeer) { r.send(msgOffer, negative) }},
		{"unknown message type", func(r *rawPeer) { r.sendHeader(77, 0) }},
		{"data before offer", func(r *rawPeer) { r.send(msgData, []byte("x")) }},
		{"other protocol version", func(r *rawPeer) { r.send(msgOffer, append([]byte{9}, lyingTotal[1:]...)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			tc.send(r)
			if ab := r.expectAbort(); ab.Code != codeProtocol {
				t.Errorf("abort code %d (%q)", ab.Code, ab.Reason)
			}
			if err := p.serveErr(t); !errors.Is(err, ErrProtocol) {
				t.Fatalf("receiver: %v, want ErrProtocol", err)
			}
			if len(listDir(t, dest)) != 0 {
				t.Error("destination changed")
			}
		})
	}
}

// TestHostileStream covers a sender whose bytes do not match its offer.
func TestHostileStream(t *testing.T) {
	offer := offerMsg{Version: protoVersion, Name: "x", Total: 10, Entries: []Entry{{Path: "f", Kind: KindFile, Size: 10, Mode: 0o644}}}
	cases := []struct {
		name   string
		stream func(r *rawPeer)
		want   error
	}{
		{"more bytes than declared", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 0}.encode())
			r.send(msgData, make([]byte, 11))
		}, ErrProtocol},
		{"more bytes over two chunks", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 0}.encode())
			r.send(msgData, make([]byte, 6))
			r.send(msgData, make([]byte, 6))
		}, ErrProtocol},
		{"fewer bytes than declared", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 0}.encode())
			r.send(msgData, make([]byte, 5))
			r.send(msgEnd, endMsg{Index: 0}.encode())
		}, ErrProtocol},
		{"wrong hash", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 0}.encode())
			r.send(msgData, make([]byte, 10))
			r.send(msgEnd, endMsg{Index: 0}.encode())
		}, ErrVerify},
		{"resume never offered", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 0, Offset: 4}.encode())
		}, ErrProtocol},
		{"skip never offered", func(r *rawPeer) {
			r.send(msgSkip, skipMsg{Index: 0}.encode())
		}, ErrProtocol},
		{"entry out of order", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 3}.encode())
		}, ErrProtocol},
		{"finish too early", func(r *rawPeer) {
			r.send(msgFinish, nil)
		}, ErrProtocol},
		{"stream cut", func(r *rawPeer) {
			r.send(msgBegin, beginMsg{Index: 0}.encode())
			r.send(msgData, make([]byte, 5))
			r.c.Close()
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			r.send(msgOffer, offer.encode())
			r.expect(msgHello)
			r.expect(msgAnswer)
			tc.stream(r)
			if tc.want != nil {
				// The sender is told why, then hangs up, as a real one does.
				if ab := r.expectAbort(); codeSentinels[ab.Code] != tc.want {
					t.Errorf("abort code %d (%q), want the code of %v", ab.Code, ab.Reason, tc.want)
				}
			}
			err := p.serveErr(t)
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("receiver: %v, want %v", err, tc.want)
			}
			if err == nil {
				t.Fatal("receiver succeeded")
			}
			t.Logf("refused: %v", err)
			if names := listDir(t, dest); len(names) != 0 {
				t.Errorf("final files appeared: %v", names)
			}
			if tc.want == ErrVerify {
				if parts, _ := os.ReadDir(filepath.Join(dest, place.PartialDir)); len(parts) != 0 {
					t.Errorf("partial kept after a hash mismatch: %v", parts)
				}
			}
		})
	}
}
