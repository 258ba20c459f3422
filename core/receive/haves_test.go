package receive

import (
	"bytes"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"lukechampine.com/blake3"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// TestHostileHaves covers a sender that breaks the have exchange: the
// receiver has f at the offered size, so its answer lists a have, and
// the sender owes one hashes message before anything else.
func TestHostileHaves(t *testing.T) {
	content := []byte("0123456789")
	sum := blake3.Sum256(content)
	offer := wire.Offer{Version: wire.Version, Name: "x", Total: 10, Entries: []event.Entry{{Path: "f", Kind: event.KindFile, Size: 10, Mode: 0o644}}}
	cases := []struct {
		name   string
		have   bool // the receiver holds f
		stream func(r *rawPeer)
	}{
		{"begin before the hashes", true, func(r *rawPeer) {
			r.send(wire.MsgBegin, wire.Begin{Index: 0}.Encode())
		}},
		{"skip before the hashes", true, func(r *rawPeer) {
			r.send(wire.MsgSkip, wire.Skip{Index: 0}.Encode())
		}},
		{"hash for another entry", true, func(r *rawPeer) {
			r.send(wire.MsgHashes, wire.Hashes{Items: []wire.HashItem{{Index: 1, Hash: sum}}}.Encode())
		}},
		{"two hashes for one have", true, func(r *rawPeer) {
			r.send(wire.MsgHashes, wire.Hashes{Items: []wire.HashItem{{Index: 0, Hash: sum}, {Index: 0, Hash: sum}}}.Encode())
		}},
		{"no hashes for a have", true, func(r *rawPeer) {
			r.send(wire.MsgHashes, wire.Hashes{}.Encode())
		}},
		{"skip after no match", true, func(r *rawPeer) {
			r.send(wire.MsgHashes, wire.Hashes{Items: []wire.HashItem{{Index: 0}}}.Encode())
			r.expect(wire.MsgMatches)
			r.send(wire.MsgSkip, wire.Skip{Index: 0}.Encode())
		}},
		{"hashes when nothing was had", false, func(r *rawPeer) {
			r.send(wire.MsgHashes, wire.Hashes{Items: []wire.HashItem{{Index: 0, Hash: sum}}}.Encode())
		}},
		{"matches from a sender", true, func(r *rawPeer) {
			r.send(wire.MsgMatches, wire.Matches{Indexes: []int{0}}.Encode())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			if tc.have {
				writeFile(t, filepath.Join(dest, "f"), content)
			}
			p := newPair(t, t.Context(), ReceiverConfig{Dir: dest, Policy: AcceptAll, Timeout: 5 * time.Second})
			r := dialRaw(t, t.Context(), p)
			r.send(wire.MsgOffer, offer.Encode())
			r.expect(wire.MsgHello)
			r.expect(wire.MsgAnswer)
			tc.stream(r)
			if ab := r.expectAbort(); ab.Code != wire.CodeProtocol {
				t.Errorf("abort code %d (%q), want protocol", ab.Code, ab.Reason)
			}
			err := p.serveErr(t)
			if !errors.Is(err, transfer.ErrProtocol) {
				t.Fatalf("receiver: %v, want ErrProtocol", err)
			}
			t.Logf("refused: %v", err)
			if names := listDir(t, dest); len(names) != map[bool]int{true: 1, false: 0}[tc.have] {
				t.Errorf("destination holds %v", names)
			}
		})
	}
}

// TestHostileMatches: a receiver whose matches name a file it never
// said it had, or that sends matches unasked, is refused by the sender.
func TestHostileMatches(t *testing.T) {
	sid, _ := ids(t)
	cases := []struct {
		name   string
		answer wire.Answer
		reply  []int // matches sent after the hashes (or after the answer, unasked)
	}{
		{"match for a file not had", wire.Answer{Items: []wire.AnswerItem{{Index: 0, Action: wire.ActHave}}}, []int{1}},
		{"matches unasked", wire.Answer{}, []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			for _, n := range []string{"a", "b"} {
				writeFile(t, filepath.Join(src, n), []byte("0123456789"))
			}
			addr := rawServer(t, t.Context(), "424242", func(c *secure.Conn) {
				var hdr [wire.HeaderLen]byte
				if _, n, err := wire.ReadHeader(c, &hdr); err == nil {
					io.CopyN(io.Discard, c, int64(n))
				}
				c.Write(wire.Frame(wire.MsgHello, wire.Hello{Version: wire.Version, Name: "liar"}.Encode()))
				c.Write(wire.Frame(wire.MsgAnswer, tc.answer.Encode()))
				c.Flush()
				if len(tc.answer.Haves()) > 0 {
					if _, n, err := wire.ReadHeader(c, &hdr); err == nil {
						io.CopyN(io.Discard, c, int64(n))
					}
				}
				c.Write(wire.Frame(wire.MsgMatches, wire.Matches{Indexes: tc.reply}.Encode()))
				c.Flush()
				c.NetConn().SetReadDeadline(time.Now().Add(5 * time.Second))
				io.Copy(io.Discard, c)
			})
			_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: "424242", Identity: sid, Timeout: 5 * time.Second,
				Items: []event.Item{{Path: filepath.Join(src, "a")}, {Path: filepath.Join(src, "b")}}})
			if !errors.Is(err, transfer.ErrProtocol) {
				t.Fatalf("send: %v, want ErrProtocol", err)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// TestOldVersionRefused: a device of protocol 1 (before the have
// exchange, whose answers disclosed the receiver's hashes) is refused with ErrIncompatibleVersion, as a sender and as a
// receiver, before any transfer message.
func TestOldVersionRefused(t *testing.T) {
	// A version-1 receiver: it answers the preamble with its own.
	t.Run("old receiver", func(t *testing.T) {
		sid, _ := ids(t)
		addr := rawPreambleServer(t, []byte("FERRY\x01\x02"))
		src := filepath.Join(t.TempDir(), "f")
		writeFile(t, src, []byte("x"))
		_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: "424242", Identity: sid, Items: []event.Item{{Path: src}}, Timeout: 5 * time.Second})
		if !errors.Is(err, secure.ErrIncompatibleVersion) {
			t.Fatalf("send: %v, want ErrIncompatibleVersion", err)
		}
		t.Logf("sender: %v", err)
	})
	// A version-1 sender: the receiver answers with its own preamble, so
	// the old sender can say which version it met, and keeps serving.
	t.Run("old sender", func(t *testing.T) {
		p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
		nc, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", p.send.Addrs[0])
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := nc.Write([]byte("FERRY\x01\x01")); err != nil {
			t.Fatal(err)
		}
		reply := make([]byte, 7)
		if _, err := io.ReadFull(nc, reply); err != nil {
			t.Fatalf("reading the receiver's preamble: %v", err)
		}
		if want := append([]byte("FERRY"), secure.ProtocolVersion); !bytes.Equal(reply[:6], want) {
			t.Errorf("receiver answered %q, want its own preamble %q", reply, want)
		}
		if _, err := nc.Read(make([]byte, 1)); err == nil {
			t.Error("the receiver went on talking to a version-1 sender")
		}
		// The receiver still serves a current sender.
		src := filepath.Join(t.TempDir(), "f")
		writeFile(t, src, []byte("x"))
		if _, serr, _, rerr := p.run(t.Context(), event.Item{Path: src}); serr != nil || rerr != nil {
			t.Fatalf("then a version-2 send: %v / %v", serr, rerr)
		}
	})
	// A version-2 handshake carrying a version-1 offer (a confused or
	// hostile peer) is refused as incompatible too.
	t.Run("old offer", func(t *testing.T) {
		p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Timeout: 5 * time.Second})
		r := dialRaw(t, t.Context(), p)
		r.send(wire.MsgOffer, wire.Offer{Version: 1, Name: "old", Total: 1, Entries: []event.Entry{{Path: "f", Kind: event.KindFile, Size: 1}}}.Encode())
		r.expect(wire.MsgHello)
		if ab := r.expectAbort(); ab.Code != wire.CodeProtocol {
			t.Errorf("abort %d %q, want protocol", ab.Code, ab.Reason)
		}
		if err := p.serveErr(t); !errors.Is(err, secure.ErrIncompatibleVersion) {
			t.Fatalf("receiver: %v, want ErrIncompatibleVersion", err)
		}
	})
}

// rawPreambleServer accepts one connection, answers its preamble with
// reply and closes, as a receiver of another version does.
func rawPreambleServer(t *testing.T, reply []byte) string {
	t.Helper()
	return acceptOne(t, func(nc net.Conn) {
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		io.ReadFull(nc, make([]byte, 7))
		nc.Write(reply)
	})
}

// TestOneProtocolVersion: the transfer messages speak the handshake's
// version (core/discovery's test checks that it advertises the same; it
// imports this package, so this test cannot import it).
func TestOneProtocolVersion(t *testing.T) {
	if wire.Version != secure.ProtocolVersion {
		t.Errorf("the handshake speaks %d, the transfer %d", secure.ProtocolVersion, wire.Version)
	}
}
