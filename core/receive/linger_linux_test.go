//go:build linux

package receive

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

// TestAbortSurvivesUnreadBytes: a receiver that fails with the sender's
// bytes still unread must not close at once, or the kernel resets the
// connection and drops what it had not sent yet, the abort included.
// The sender here reads nothing until the receiver is done, through a
// receive window too small for the answer, so the abort is still queued
// on the receiver's side when it closes; and it sends megabytes the
// receiver never asked for.
func TestAbortSurvivesUnreadBytes(t *testing.T) {
	dir := t.TempDir()
	const n = 400
	var entries []event.Entry
	for i := range n {
		name := fmt.Sprintf("f%03d", i)
		writeFile(t, filepath.Join(dir, name), []byte("x"))
		entries = append(entries, event.Entry{Path: name, Kind: event.KindFile, Size: 1, Mode: 0o644})
	}
	p := newPair(t, t.Context(), ReceiverConfig{Dir: dir, Policy: AcceptAll, Timeout: time.Second})
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) // the kernel's minimum
		})
		if err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.DialContext(t.Context(), "tcp", p.send.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := secure.Client(t.Context(), nc, secure.Config{Identity: p.send.Identity, Code: p.send.Code})
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	defer c.Close()
	r := &rawPeer{t: t, c: c}
	r.send(wire.MsgOffer, wire.Offer{Version: wire.Version, Total: n, Entries: entries}.Encode())
	r.send(wire.MsgBegin, wire.Begin{Index: 7}.Encode()) // the receiver expects entry 0
	chunk := make([]byte, transfer.MaxChunk)
	for range 4 << 20 / transfer.MaxChunk {
		if _, err := c.Write(wire.Frame(wire.MsgData, chunk)); err != nil {
			break // the receiver reset the connection
		}
	}
	c.Flush()
	if err := p.serveErr(t); !errors.Is(err, transfer.ErrProtocol) {
		t.Fatalf("receiver: %v, want ErrProtocol", err)
	}
	r.expect(wire.MsgHello)
	r.expect(wire.MsgAnswer)
	m := r.expectAbort()
	if err := transfer.PeerAbortError("the receiver", m); !errors.Is(err, transfer.ErrProtocol) {
		t.Errorf("abort %d %q, want a protocol violation", m.Code, m.Reason)
	}
}
