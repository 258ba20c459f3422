// Package hostile is a Ferry sender that breaks the rules on purpose, for
// the end-to-end tests that point it at a real receiver process. It is
// written from the wire protocol as core/transfer's package doc states it
// (a message is a type byte, a big-endian uint32 body length and the
// body; integers are varints; a string is a uvarint length and its bytes),
// not from core/transfer's own encoder, so that a mistake shared by the
// encoder and the decoder cannot hide here. The encrypted channel under it
// is the real core/secure: an attacker who knows the code gets exactly
// this far, and one who does not gets only the handshake.
//
// Nothing here checks what it sends: every body is built from the fields
// the caller gives, valid or not.
package hostile

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/secure"
)

// Message types (core/transfer's doc, "Wire protocol (version 2)").
const (
	Hello     = 1
	Offer     = 2
	Answer    = 3
	Begin     = 4
	Data      = 5
	End       = 6
	Skip      = 7
	Confirm   = 8
	Finish    = 9
	Done      = 10
	Abort     = 11
	Keepalive = 12
	Hashes    = 13
	Matches   = 14
)

// Abort codes.
const (
	AbortInternal      = 1
	AbortCancelled     = 2
	AbortDeclined      = 3
	AbortRefusedPath   = 4
	AbortNoSpace       = 5
	AbortProtocol      = 6
	AbortVerify        = 7
	AbortSourceChanged = 8
	AbortTimeout       = 9
)

// Entry kinds in an offer.
const (
	File   = 1
	Folder = 2
	Text   = 3
)

// Version is the transfer protocol version that honest offers carry.
const Version = 2

// ChunkSize is the largest data body a receiver accepts.
const ChunkSize = secure.ChunkSize

// Entry is one manifest line exactly as it goes on the wire.
type Entry struct {
	Kind uint8
	Path string
	Size uint64
	Mode uint64
	Sec  int64
	Nsec uint64
}

// Body builds message bodies from the protocol's primitives.
type Body struct{ b []byte }

func (w *Body) U8(v uint8) *Body       { w.b = append(w.b, v); return w }
func (w *Body) Uvarint(v uint64) *Body { w.b = binary.AppendUvarint(w.b, v); return w }
func (w *Body) Varint(v int64) *Body   { w.b = binary.AppendVarint(w.b, v); return w }
func (w *Body) Raw(p []byte) *Body     { w.b = append(w.b, p...); return w }
func (w *Body) Str(s string) *Body     { return w.Uvarint(uint64(len(s))).Raw([]byte(s)) }
func (w *Body) Bytes() []byte          { return w.b }

// OfferBody encodes an offer: version, sender name, entry count, declared
// total, then the entries.
func OfferBody(version uint8, name string, total uint64, entries []Entry) []byte {
	w := new(Body).U8(version).Str(name).Uvarint(uint64(len(entries))).Uvarint(total)
	for _, e := range entries {
		w.U8(e.Kind).Str(e.Path).Uvarint(e.Size).Uvarint(e.Mode).Varint(e.Sec).Uvarint(e.Nsec)
	}
	return w.Bytes()
}

// Total is the sum of the entries' sizes (wrapping, as a liar's would).
func Total(entries []Entry) uint64 {
	var t uint64
	for _, e := range entries {
		t += e.Size
	}
	return t
}

func BeginBody(index, offset uint64) []byte {
	return new(Body).Uvarint(index).Uvarint(offset).Bytes()
}

func EndBody(index uint64, hash [32]byte) []byte {
	return new(Body).Uvarint(index).Raw(hash[:]).Bytes()
}

func SkipBody(index uint64) []byte { return new(Body).Uvarint(index).Bytes() }

// HashItem is one item of a hashes message.
type HashItem struct {
	Index uint64
	Hash  [32]byte
}

// HashesBody encodes a hashes message: the sender's hash of each file the
// answer said the receiver has at its size.
func HashesBody(items []HashItem) []byte {
	w := new(Body).Uvarint(uint64(len(items)))
	for _, it := range items {
		w.Uvarint(it.Index).Raw(it.Hash[:])
	}
	return w.Bytes()
}

// AbortMsg is a decoded abort.
type AbortMsg struct {
	Code   uint8
	Reason string
}

// ParseAbort decodes an abort body.
func ParseAbort(b []byte) (AbortMsg, error) {
	if len(b) < 1 {
		return AbortMsg{}, errors.New("empty abort")
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || uint64(len(b)-1-k) != n {
		return AbortMsg{}, fmt.Errorf("malformed abort %x", b)
	}
	return AbortMsg{Code: b[0], Reason: string(b[1+k:])}, nil
}

// Sender is one connection to a receiver, past the handshake.
type Sender struct {
	c  *secure.Conn
	nc net.Conn
}

// Dial connects to addr and runs the handshake with code, as a device of
// its own (a fresh key). A wrong code shows only at the first Next, as
// core/secure promises.
func Dial(ctx context.Context, addr, code string) (*Sender, error) {
	return DialFrom(ctx, nil, addr, code)
}

// DialFrom is Dial through d, which may set the source address.
func DialFrom(ctx context.Context, d *net.Dialer, addr, code string) (*Sender, error) {
	id, err := secure.NewIdentity()
	if err != nil {
		return nil, err
	}
	if d == nil {
		d = new(net.Dialer)
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	c, err := secure.Client(ctx, nc, secure.Config{Identity: id, Code: code})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &Sender{c: c, nc: nc}, nil
}

// Send writes one whole message and flushes it.
func (s *Sender) Send(t uint8, body []byte) error {
	if err := s.Header(t, uint32(len(body))); err != nil {
		return err
	}
	if _, err := s.c.Write(body); err != nil {
		return err
	}
	return s.c.Flush()
}

// Header writes only a message header, which may claim any body length,
// and flushes it.
func (s *Sender) Header(t uint8, n uint32) error {
	var h [5]byte
	h[0] = t
	binary.BigEndian.PutUint32(h[1:], n)
	if _, err := s.c.Write(h[:]); err != nil {
		return err
	}
	return s.c.Flush()
}

// Next returns the receiver's next message other than a keepalive,
// waiting at most timeout.
func (s *Sender) Next(timeout time.Duration) (uint8, []byte, error) {
	s.nc.SetReadDeadline(time.Now().Add(timeout))
	for {
		var h [5]byte
		if _, err := io.ReadFull(s.c, h[:]); err != nil {
			return 0, nil, err
		}
		n := binary.BigEndian.Uint32(h[1:])
		if n > 8<<20 { // larger than any receiver message
			return 0, nil, fmt.Errorf("message %d of %d bytes", h[0], n)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(s.c, body); err != nil {
			return 0, nil, err
		}
		if h[0] != Keepalive {
			return h[0], body, nil
		}
	}
}

// StreamData sends data messages of full chunks until the connection
// fails or ctx ends, and returns the plaintext bytes it got into the
// stream. It is "declare a tiny file, then never stop".
func (s *Sender) StreamData(ctx context.Context) (int64, error) {
	stop := context.AfterFunc(ctx, func() { s.nc.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	msg := make([]byte, 5+ChunkSize)
	msg[0] = Data
	binary.BigEndian.PutUint32(msg[1:], ChunkSize)
	for i := 5; i < len(msg); i++ {
		msg[i] = byte(i)
	}
	var n int64
	for {
		if _, err := s.c.Write(msg); err != nil {
			return n, err
		}
		if err := s.c.Flush(); err != nil {
			return n, err
		}
		n += ChunkSize
	}
}

// Close drops the connection without an end of stream.
func (s *Sender) Close() error { return s.c.Close() }

// Stalled is a connection left in the middle of a handshake.
type Stalled struct {
	nc     net.Conn
	stop   chan struct{}
	parked chan struct{} // closed once the handshake is stuck in a write
	done   chan struct{} // closed when the handshake goroutine has returned
	once   sync.Once
}

// Stall opens a connection to addr and stops the handshake after writes
// writes: 0 says nothing after connecting, 1 sends only the preamble, 2
// sends message 1 too (and reads message 2) and then never sends message
// 3. It returns once the connection is open; the handshake goes on in the
// background until it is stuck or the receiver gives up on it. d may set
// the source address; nil is the default dialer.
func Stall(ctx context.Context, d *net.Dialer, addr, code string, writes int) (*Stalled, error) {
	if d == nil {
		d = new(net.Dialer)
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	st := &Stalled{nc: nc, stop: make(chan struct{}), parked: make(chan struct{}), done: make(chan struct{})}
	if writes == 0 {
		close(st.parked)
		close(st.done)
		return st, nil
	}
	id, err := secure.NewIdentity()
	if err != nil {
		nc.Close()
		return nil, err
	}
	go func() {
		defer close(st.done)
		// A timeout long enough never to give up first: the receiver must.
		bc := &budgetConn{Conn: nc, writes: writes, stop: st.stop, parked: st.parked}
		secure.Client(context.Background(), bc, secure.Config{Identity: id, Code: code, Timeout: time.Hour})
	}()
	return st, nil
}

// Closed reports whether the receiver has closed (or reset) the
// connection, waiting at most wait for it.
func (st *Stalled) Closed(wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-st.parked:
	case <-st.done: // the receiver ended the handshake before it stuck
		return true
	case <-t.C:
		return false
	}
	// The handshake goroutine is stuck in a write, so this is the only
	// reader: it sees the receiver's close, or times out.
	st.nc.SetReadDeadline(time.Now().Add(wait))
	var b [512]byte
	for {
		_, err := st.nc.Read(b[:])
		if err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

// Close ends the stalled connection from this side.
func (st *Stalled) Close() {
	st.once.Do(func() { close(st.stop) })
	st.nc.Close()
	<-st.done
}

// budgetConn lets a fixed number of writes through, then blocks every
// further write until stop is closed.
type budgetConn struct {
	net.Conn
	writes int
	stop   chan struct{}
	parked chan struct{}
}

func (c *budgetConn) Write(p []byte) (int, error) {
	if c.writes == 0 {
		select {
		case <-c.parked:
		default:
			close(c.parked)
		}
		<-c.stop
		return 0, net.ErrClosed
	}
	c.writes--
	return c.Conn.Write(p)
}
