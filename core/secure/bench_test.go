package secure_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/ferry-project/ferry/core/internal/streamtune"
	"github.com/ferry-project/ferry/core/secure"
)

// BenchmarkStream moves ChunkSize writes from one goroutine to another
// through a real handshake over loopback TCP, with AES-256-GCM, in the
// settings the design chose (batched writes, buffered reads) and without
// each. One op is one chunk: MB/s is the stream's plaintext rate and
// allocs/op counts both ends. benches/cmd/ferrybench runs it with the
// other microbenchmarks; its two-process stream figure is the same
// measurement with the ends in separate processes.
func BenchmarkStream(b *testing.B) {
	for _, bc := range []struct {
		name       string
		send, recv streamtune.Knobs
	}{
		{"default", streamtune.Knobs{}, streamtune.Knobs{}},
		{"unbatched", streamtune.Knobs{Batch: 1}, streamtune.Knobs{}},
		{"unbuffered", streamtune.Knobs{}, streamtune.Knobs{Unbuffered: true}},
		{"unbatched+unbuffered", streamtune.Knobs{Batch: 1}, streamtune.Knobs{Unbuffered: true}},
	} {
		b.Run(bc.name, func(b *testing.B) { benchStream(b, bc.send, bc.recv) })
	}
}

func benchStream(b *testing.B, send, recv streamtune.Knobs) {
	client, server := benchStreamPair(b, send, recv)
	defer client.Close()
	defer server.Close()
	chunk := make([]byte, secure.ChunkSize)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	buf := make([]byte, secure.ChunkSize)
	n := b.N
	sent := make(chan error, 1)
	b.SetBytes(secure.ChunkSize)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for range n {
			if _, err := client.Write(chunk); err != nil {
				sent <- err
				return
			}
		}
		sent <- client.CloseWrite()
	}()
	var rerr error
	for range n {
		if _, rerr = io.ReadFull(server, buf); rerr != nil {
			break
		}
	}
	if rerr == nil {
		if _, err := server.Read(buf); err != io.EOF {
			rerr = errors.Join(errors.New("no end of stream after the last chunk"), err)
		}
	}
	b.StopTimer()
	if rerr != nil {
		// Unblock a sender stuck on a full socket before waiting for it.
		server.Close()
	}
	if err := <-sent; err != nil || rerr != nil {
		b.Fatalf("sending: %v; receiving: %v", err, rerr)
	}
}

// benchStreamPair is a handshake over a loopback TCP connection with
// AES-256-GCM forced on both ends and each end's knobs; the dialing end
// sends.
func benchStreamPair(b *testing.B, send, recv streamtune.Knobs) (client, server *secure.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	type accepted struct {
		c   *secure.Conn
		err error
	}
	done := make(chan accepted, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			done <- accepted{nil, err}
			return
		}
		id, err := secure.NewIdentity()
		if err != nil {
			nc.Close()
			done <- accepted{nil, err}
			return
		}
		c, err := secure.Server(streamtune.With(context.Background(), recv), nc,
			secure.Config{Identity: id, Code: "314159", Cipher: secure.AESGCM})
		if err != nil {
			nc.Close()
		}
		done <- accepted{c, err}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	id, err := secure.NewIdentity()
	if err != nil {
		b.Fatal(err)
	}
	client, cerr := secure.Client(streamtune.With(context.Background(), send), nc,
		secure.Config{Identity: id, Code: "314159", Cipher: secure.AESGCM})
	a := <-done
	if cerr != nil || a.err != nil {
		nc.Close()
		if a.c != nil {
			a.c.Close()
		}
		b.Fatalf("handshake: client %v, server %v", cerr, a.err)
	}
	return client, a.c
}
