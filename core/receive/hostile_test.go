package receive

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

func TestHostileOffers(t *testing.T) {
	file := func(p string) event.Entry { return event.Entry{Path: p, Kind: event.KindFile, Size: 1, Mode: 0o644} }
	dir := func(p string) event.Entry { return event.Entry{Path: p, Kind: event.KindDir, Mode: 0o755} }
	long := strings.Repeat("d", 200)
	var deep []event.Entry
	for p := long; len(p) <= transfer.MaxPathBytes+200; p += "/" + long {
		deep = append(deep, dir(p))
	}
	cases := []struct {
		name    string
		entries []event.Entry
		plant   func(t *testing.T, dest, outside string)
		want    error
	}{
		{"dotdot", []event.Entry{file("../x")}, nil, transfer.ErrRefusedPath},
		{"nested dotdot", []event.Entry{dir("a"), file("a/../../x")}, nil, transfer.ErrRefusedPath},
		{"absolute", []event.Entry{file("/etc/x")}, nil, transfer.ErrRefusedPath},
		{"drive letter", []event.Entry{file(`C:\x`)}, nil, transfer.ErrRefusedPath},
		{"backslash dotdot", []event.Entry{file(`x\..\y`)}, nil, transfer.ErrRefusedPath},
		{"NUL byte", []event.Entry{file("a\x00b")}, nil, transfer.ErrRefusedPath},
		{"dot", []event.Entry{file(".")}, nil, transfer.ErrRefusedPath},
		{"dotdot alone", []event.Entry{dir("..")}, nil, transfer.ErrRefusedPath},
		{"dot inside", []event.Entry{dir("a"), file("a/./b")}, nil, transfer.ErrRefusedPath},
		{"empty component", []event.Entry{dir("a"), file("a//b")}, nil, transfer.ErrRefusedPath},
		{"name over 255 bytes", []event.Entry{file(strings.Repeat("n", 256))}, nil, transfer.ErrRefusedPath},
		{"path over 4096 bytes", deep, nil, transfer.ErrProtocol},
		{"CON", []event.Entry{file("CON")}, nil, transfer.ErrRefusedPath},
		{"nul.txt", []event.Entry{file("nul.txt")}, nil, transfer.ErrRefusedPath},
		{"COM1", []event.Entry{file("com1")}, nil, transfer.ErrRefusedPath},
		{"LPT9.log", []event.Entry{file("LPT9.log")}, nil, transfer.ErrRefusedPath},
		{"AUX in folder", []event.Entry{dir("a"), dir("a/Aux")}, nil, transfer.ErrRefusedPath},
		{"PRN", []event.Entry{file("PRN")}, nil, transfer.ErrRefusedPath},
		{"trailing dot", []event.Entry{file("x.")}, nil, transfer.ErrRefusedPath},
		{"trailing space", []event.Entry{file("x ")}, nil, transfer.ErrRefusedPath},
		{"partial folder", []event.Entry{dir(place.PartialDir), file(place.PartialDir + "/x")}, nil, transfer.ErrRefusedPath},
		{"not UTF-8", []event.Entry{file("a\xffb")}, nil, transfer.ErrProtocol},
		{"same path twice", []event.Entry{file("a.txt"), file("a.txt")}, nil, transfer.ErrRefusedPath},
		{"case only", []event.Entry{file("Photo.JPG"), file("photo.jpg")}, nil, transfer.ErrRefusedPath},
		{"parent not offered", []event.Entry{file("a/b")}, nil, transfer.ErrProtocol},
		{"folder with size", []event.Entry{{Path: "a", Kind: event.KindDir, Size: 5}}, nil, transfer.ErrProtocol},
		{"unknown kind", []event.Entry{{Path: "a", Kind: 9}}, nil, transfer.ErrProtocol},
		{"text over limit", []event.Entry{{Path: "t.txt", Kind: event.KindText, Size: transfer.MaxTextBytes + 1}}, nil, transfer.ErrProtocol},
		{"more than the disk", []event.Entry{{Path: "big", Kind: event.KindFile, Size: 1 << 60}}, nil, transfer.ErrNoSpace},
		{"size sum overflows", []event.Entry{{Path: "a", Kind: event.KindFile, Size: math.MaxInt64/2 + 1}, {Path: "b", Kind: event.KindFile, Size: math.MaxInt64/2 + 1}}, nil, transfer.ErrProtocol},
		{"symlink out of the destination", []event.Entry{dir("link"), file("link/passwd")},
			func(t *testing.T, dest, outside string) {
				if err := os.Symlink(outside, filepath.Join(dest, "link")); err != nil {
					t.Fatal(err)
				}
			}, transfer.ErrRefusedPath},
		{"nested symlink", []event.Entry{dir("a"), dir("a/b"), file("a/b/x")},
			func(t *testing.T, dest, outside string) {
				os.Mkdir(filepath.Join(dest, "a"), 0o755)
				if err := os.Symlink(outside, filepath.Join(dest, "a", "b")); err != nil {
					t.Fatal(err)
				}
			}, transfer.ErrRefusedPath},
		{"partial folder is a symlink", []event.Entry{file("x")},
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
			om := wire.Offer{Version: wire.Version, Name: "hostile", Entries: tc.entries}
			for _, e := range tc.entries {
				if om.Total > math.MaxInt64-e.Size {
					om.Total = 1 // the entries overflow: any total will do
					break
				}
				om.Total += e.Size
			}
			r.send(wire.MsgOffer, om.Encode())
			r.expect(wire.MsgHello)
			want := tc.want
			if want == nil {
				// The offer is fine; the planted link stops the first write.
				r.expect(wire.MsgAnswer)
				r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
				want = transfer.ErrRefusedPath
			}
			ab := r.expectAbort()
			if transfer.CodeSentinels[ab.Code] != want {
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
	// Built by hand, as a hostile peer would: the wire's encoder never
	// writes these.
	u, sv := binary.AppendUvarint, binary.AppendVarint
	str := func(b []byte, s string) []byte { return append(u(b, uint64(len(s))), s...) }
	millions := u(u(str([]byte{wire.Version}, "x"), 5_000_000), 0)

	lyingTotal := u(u(str([]byte{wire.Version}, "x"), 1), 5) // declares 5 bytes, entry has 1
	lyingTotal = u(str(append(lyingTotal, uint8(event.KindFile)), "a"), 1)
	lyingTotal = u(sv(u(lyingTotal, 0o644), 0), 0)

	negative := u(u(str([]byte{wire.Version}, "x"), 1), 1<<63)
	negative = u(str(append(negative, uint8(event.KindFile)), "a"), 1<<63) // a negative size, once signed
	negative = u(sv(u(negative, 0o644), 0), 0)

	cases := []struct {
		name string
		send func(r *rawPeer)
	}{
		{"millions of entries", func(r *rawPeer) { r.send(wire.MsgOffer, millions) }},
		{"manifest over the cap", func(r *rawPeer) { r.sendHeader(wire.MsgOffer, transfer.MaxManifestBytes+1) }},
		{"total that lies", func(r *rawPeer) { r.send(wire.MsgOffer, lyingTotal) }},
		{"negative size", func(r *rawPeer) { r.send(wire.MsgOffer, negative) }},
		{"unknown message type", func(r *rawPeer) { r.sendHeader(77, 0) }},
		{"data before offer", func(r *rawPeer) { r.send(wire.MsgData, []byte("x")) }},
		{"other protocol version", func(r *rawPeer) { r.send(wire.MsgOffer, append([]byte{9}, lyingTotal[1:]...)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			tc.send(r)
			if ab := r.expectAbort(); ab.Code != wire.CodeProtocol {
				t.Errorf("abort code %d (%q)", ab.Code, ab.Reason)
			}
			if err := p.serveErr(t); !errors.Is(err, transfer.ErrProtocol) {
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
	offer := wire.Offer{Version: wire.Version, Name: "x", Total: 10, Entries: []event.Entry{{Path: "f", Kind: event.KindFile, Size: 10, Mode: 0o644}}}
	cases := []struct {
		name   string
		stream func(r *rawPeer)
		want   error
	}{
		{"more bytes than declared", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
			r.send(wire.MsgData, make([]byte, 11))
		}, transfer.ErrProtocol},
		{"more bytes over two chunks", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
			r.send(wire.MsgData, make([]byte, 6))
			r.send(wire.MsgData, make([]byte, 6))
		}, transfer.ErrProtocol},
		{"fewer bytes than declared", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
			r.send(wire.MsgData, make([]byte, 5))
			r.send(wire.MsgEnd, wire.End{Index: 0}.Encode())
		}, transfer.ErrProtocol},
		{"wrong hash", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
			r.send(wire.MsgData, make([]byte, 10))
			r.send(wire.MsgEnd, wire.End{Index: 0}.Encode())
		}, transfer.ErrVerify},
		{"resume never offered", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0, Offset: 4}.Encode())
		}, transfer.ErrProtocol},
		{"skip never offered", func(r *rawPeer) {
			r.send(wire.MsgSkip, wire.Skip{Index: 0}.Encode())
		}, transfer.ErrProtocol},
		{"entry out of order", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 3}.Encode())
		}, transfer.ErrProtocol},
		{"finish too early", func(r *rawPeer) {
			r.send(wire.MsgFinish, nil)
		}, transfer.ErrProtocol},
		{"stream cut", func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
			r.send(wire.MsgData, make([]byte, 5))
			r.c.Close()
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			r.send(wire.MsgOffer, offer.Encode())
			r.expect(wire.MsgHello)
			r.expect(wire.MsgAnswer)
			tc.stream(r)
			if tc.want != nil {
				// The sender is told why, then hangs up, as a real one does.
				if ab := r.expectAbort(); transfer.CodeSentinels[ab.Code] != tc.want {
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
			if tc.want == transfer.ErrVerify {
				if parts, _ := os.ReadDir(filepath.Join(dest, place.PartialDir)); len(parts) != 0 {
					t.Errorf("partial kept after a hash mismatch: %v", parts)
				}
			}
		})
	}
}
