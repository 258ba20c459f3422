package testkit

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
)

// A Tamper carries the bytes a proxy's client sends on to the server,
// changing some on the way. Forward returns when src ends or dst fails.
type Tamper interface {
	Forward(dst io.Writer, src io.Reader)
}

// Proxy relays one TCP connection, accepted on loopback, to a target:
// the server's bytes back unchanged, the client's through a Tamper. Each
// direction's end is passed on as a half-close, so either side can still
// answer after the other has finished.
type Proxy struct {
	// Addr is where a client connects instead of the target.
	Addr string
}

// StartProxy listens on loopback and relays the first connection to
// target through tm. The listener, both connections and the relaying
// goroutines end at t's cleanup.
func StartProxy(t testing.TB, target string, tm Tamper) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	keep := func(c net.Conn) { mu.Lock(); conns = append(conns, c); mu.Unlock() }
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		in, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		keep(in)
		defer in.Close()
		out, err := net.Dial("tcp", target)
		if err != nil {
			t.Errorf("proxy dialing %s: %v", target, err)
			return
		}
		keep(out)
		defer out.Close()
		back := make(chan struct{})
		go func() {
			defer close(back)
			io.Copy(in, out)
			in.(*net.TCPConn).CloseWrite()
		}()
		tm.Forward(out, in)
		out.(*net.TCPConn).CloseWrite()
		<-back // the server's answer to a half-closed client still goes back
	}()
	return &Proxy{Addr: ln.Addr().String()}
}

// FlipByte is a Tamper that XORs the byte at offset At of the stream
// with Bit.
type FlipByte struct {
	At  int64
	Bit byte

	mu   sync.Mutex
	done bool
}

// Forward implements Tamper.
func (f *FlipByte) Forward(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	var off int64
	for {
		n, err := src.Read(buf)
		if f.At >= off && f.At < off+int64(n) {
			buf[f.At-off] ^= f.Bit
			f.mu.Lock()
			f.done = true
			f.mu.Unlock()
		}
		off += int64(n)
		if _, werr := dst.Write(buf[:n]); werr != nil || err != nil {
			return
		}
	}
}

// Flipped reports whether the byte at At has passed (and been changed).
func (f *FlipByte) Flipped() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.done }

// FlipRecord is a Tamper that flips one bit in the middle of the body of
// the first encrypted record that starts at or after offset At of the
// record stream. It reads the framing as core/secure documents it: a
// 7-byte preamble, then frames of a 2-byte big-endian length and a body,
// the first two of them handshake messages 1 and 3; the record stream
// (framing included) starts after them.
type FlipRecord struct {
	At int64

	mu     sync.Mutex
	done   bool
	record int   // index of the changed record
	offset int64 // where it started in the record stream
}

// secure's framing, as its package doc states it.
const (
	preambleLen     = 7
	handshakeFrames = 2
)

// Forward implements Tamper.
func (f *FlipRecord) Forward(dst io.Writer, src io.Reader) {
	pre := make([]byte, preambleLen)
	if _, err := io.ReadFull(src, pre); err != nil {
		return
	}
	if _, err := dst.Write(pre); err != nil {
		return
	}
	var stream int64 // bytes of records (framing included) so far
	for frame := 0; ; frame++ {
		var hdr [2]byte
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint16(hdr[:]))
		if _, err := io.ReadFull(src, body); err != nil {
			return
		}
		if frame >= handshakeFrames {
			f.mu.Lock()
			if !f.done && stream >= f.At && len(body) > 16 { // more than a bare AEAD tag
				body[len(body)/2] ^= 0x10
				f.done, f.record, f.offset = true, frame-handshakeFrames, stream
			}
			f.mu.Unlock()
			stream += int64(2 + len(body))
		}
		if _, err := dst.Write(append(hdr[:], body...)); err != nil {
			return
		}
	}
}

// Flipped reports whether a record was changed: its index among the
// records after the handshake, and where it started in the record stream.
func (f *FlipRecord) Flipped() (record int, offset int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.record, f.offset, f.done
}
