package secure

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"time"
)

// memConn is a net.Conn over in-memory bytes, for tests that need to see
// or damage the exact ciphertext. Only Read and Write are real.
type memConn struct {
	net.Conn
	r     io.Reader
	w     bytes.Buffer
	reads int
}

func (m *memConn) Read(p []byte) (int, error)       { m.reads++; return m.r.Read(p) }
func (m *memConn) Write(p []byte) (int, error)      { return m.w.Write(p) }
func (m *memConn) Close() error                     { return nil }
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

// keyedPair returns a writing Conn and a function that makes reading Conns
// over given bytes, sharing one random key as a real handshake would.
func keyedPair(c Cipher, cfg Config) (w *Conn, out *memConn, reader func(b []byte) (*Conn, *memConn)) {
	var k [32]byte
	rand.Read(k[:])
	mk := func() *recordCipher {
		rc, err := newRecordCipherKey(c, k)
		if err != nil {
			panic(err)
		}
		return rc
	}
	out = &memConn{r: bytes.NewReader(nil)}
	w = newConn(out, c, mk(), mk(), nil, &cfg)
	reader = func(b []byte) (*Conn, *memConn) {
		in := &memConn{r: bytes.NewReader(b)}
		return newConn(in, c, mk(), mk(), nil, &cfg), in
	}
	return w, out, reader
}
