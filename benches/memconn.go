package benches

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/secure"
)

// memConn is a net.Conn that runs the handshake over net.Pipe and then,
// once detached, stops touching any socket: writes go to sink and reads
// come from src. The record benchmarks use it so that a figure holds the
// cost of Conn.Write or Conn.Read and not the kernel's.
type memConn struct {
	net.Conn
	detached bool
	sink     func([]byte)
	src      func([]byte) (int, error)
}

func (m *memConn) Write(p []byte) (int, error) {
	if !m.detached {
		return m.Conn.Write(p)
	}
	if m.sink != nil {
		m.sink(p)
	}
	return len(p), nil
}

func (m *memConn) Read(p []byte) (int, error) {
	if !m.detached {
		return m.Conn.Read(p)
	}
	if m.src == nil {
		return 0, io.EOF
	}
	return m.src(p)
}

func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

// memPair runs a real handshake (client = sender, server = receiver)
// forcing cipher c, then detaches both ends from the pipe.
func memPair(c secure.Cipher) (client, server *secure.Conn, cm, sm *memConn, err error) {
	a, b := net.Pipe()
	cm, sm = &memConn{Conn: a}, &memConn{Conn: b}
	ci, err := secure.NewIdentity()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	si, err := secure.NewIdentity()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var (
		wg   sync.WaitGroup
		serr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		server, serr = secure.Server(context.Background(), sm, secure.Config{Identity: si, Code: "314159", Cipher: c})
	}()
	client, err = secure.Client(context.Background(), cm, secure.Config{Identity: ci, Code: "314159", Cipher: c})
	wg.Wait()
	a.Close()
	b.Close()
	if err = errors.Join(err, serr); err != nil {
		return nil, nil, nil, nil, err
	}
	cm.detached, sm.detached = true, true
	return client, server, cm, sm, nil
}
