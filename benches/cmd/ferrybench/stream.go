package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/internal/streamtune"
)

// The stream figures move N bytes from a child process (the sender) to
// this process (the receiver) over loopback TCP. Both ends write and read
// in secure.ChunkSize pieces whatever the mode, so plain TCP and the
// encrypted stream differ only by the encryption. The clock runs on the
// receiver from the moment it tells the sender to go (one byte, after the
// handshake) until it has read the end of stream, so the handshake and
// process start-up are outside it.

const code = "271828"

type streamRun struct {
	mode       string // plain, aes, chacha
	bytes      int64
	batch      int  // streamtune.Knobs.Batch on the sender; 0 = default
	unbuffered bool // streamtune.Knobs.Unbuffered on the receiver
	prefetch   bool // receiver calls Prefetch before each chunk
}

type streamResult struct {
	mibps        float64
	socketWrites int64 // sender's write calls
	socketReads  int64 // receiver's read calls
}

func cipherOf(mode string) secure.Cipher {
	if mode == "chacha" {
		return secure.ChaChaPoly
	}
	return secure.AESGCM
}

// runStream runs one transfer and returns its figures or why it failed.
func runStream(o options, r streamRun) (res streamResult, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	defer ln.Close()
	ch, err := startChild(o.timeout, "stream-send",
		"-addr", ln.Addr().String(), "-mode", r.mode,
		"-bytes", strconv.FormatInt(r.bytes, 10), "-batch", strconv.Itoa(r.batch))
	if err != nil {
		return res, err
	}
	// Whatever happens here, the child is waited for and its error kept.
	recvErr := func() error {
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(o.timeout))
		nc, err := ln.Accept()
		if err != nil {
			return fmt.Errorf("accepting: %w", err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(o.timeout))
		var (
			rw    io.ReadWriter
			flush = func() error { return nil }
			pre   = func(int) error { return nil }
			sc    *secure.Conn
			cr    = &countingReader{r: nc}
		)
		if r.mode == "plain" {
			rw = struct {
				io.Reader
				io.Writer
			}{cr, nc}
		} else {
			id, err := secure.NewIdentity()
			if err != nil {
				return err
			}
			ctx := streamtune.With(context.Background(), streamtune.Knobs{Unbuffered: r.unbuffered})
			sc, err = secure.Server(ctx, nc, secure.Config{Identity: id, Code: code, Cipher: cipherOf(r.mode)})
			if err != nil {
				return fmt.Errorf("handshake: %w", err)
			}
			rw, flush = sc, sc.Flush
			if r.prefetch {
				pre = sc.Prefetch
			}
		}
		buf := make([]byte, secure.ChunkSize)
		start := time.Now()
		if _, err := rw.Write([]byte{1}); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		for left := r.bytes; left > 0; {
			n := int(min(int64(len(buf)), left))
			if err := pre(n); err != nil {
				return fmt.Errorf("prefetch: %w", err)
			}
			if _, err := io.ReadFull(rw, buf[:n]); err != nil {
				return fmt.Errorf("reading with %d bytes left: %w", left, err)
			}
			left -= int64(n)
		}
		if n, err := rw.Read(buf); err != io.EOF {
			return fmt.Errorf("expected the end of stream, got %d bytes and %v", n, err)
		}
		res.mibps = float64(r.bytes) / (1 << 20) / time.Since(start).Seconds()
		if sc != nil {
			res.socketReads = sc.Stats().SocketReads
		} else {
			res.socketReads = cr.calls
		}
		return nil
	}()
	if recvErr != nil {
		ch.cancel()
	}
	rep, childErr := ch.wait()
	res.socketWrites = rep.SocketWrites
	if recvErr != nil {
		return res, fmt.Errorf("receiver: %v (sender: %v)", recvErr, childErr)
	}
	if childErr != nil {
		return res, fmt.Errorf("sender: %w", childErr)
	}
	return res, nil
}

type countingReader struct {
	r     io.Reader
	calls int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.calls++
	return c.r.Read(p)
}

type countingWriter struct {
	w     io.Writer
	calls int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls++
	return c.w.Write(p)
}

func streamSendChild(args []string) childReport {
	fs := flag.NewFlagSet("stream-send", flag.ContinueOnError)
	addr := fs.String("addr", "", "")
	mode := fs.String("mode", "plain", "")
	total := fs.Int64("bytes", 0, "")
	batch := fs.Int("batch", 0, "")
	if err := fs.Parse(args); err != nil {
		return fail("%v", err)
	}
	nc, err := net.Dial("tcp", *addr)
	if err != nil {
		return fail("dialing: %v", err)
	}
	defer nc.Close()
	var (
		r     io.Reader
		w     io.Writer
		sc    *secure.Conn
		cw    = &countingWriter{w: nc}
		close = func() error { return nc.(*net.TCPConn).CloseWrite() }
	)
	if *mode == "plain" {
		r, w = nc, cw
	} else {
		id, err := secure.NewIdentity()
		if err != nil {
			return fail("%v", err)
		}
		ctx := streamtune.With(context.Background(), streamtune.Knobs{Batch: *batch})
		sc, err = secure.Client(ctx, nc, secure.Config{Identity: id, Code: code, Cipher: cipherOf(*mode)})
		if err != nil {
			return fail("handshake: %v", err)
		}
		r, w, close = sc, sc, sc.CloseWrite
	}
	var goByte [1]byte
	if _, err := io.ReadFull(r, goByte[:]); err != nil {
		return fail("waiting for the receiver: %v", err)
	}
	buf := benches.Payload(secure.ChunkSize)
	for left := *total; left > 0; {
		n := int(min(int64(len(buf)), left))
		if _, err := w.Write(buf[:n]); err != nil {
			return fail("writing: %v", err)
		}
		left -= int64(n)
	}
	if err := close(); err != nil {
		return fail("closing: %v", err)
	}
	rep := childReport{SocketWrites: cw.calls}
	if sc != nil {
		rep.SocketWrites = sc.Stats().SocketWrites
	}
	return rep
}

// streamFigure: plain TCP, AES-GCM and ChaCha20-Poly1305 streams in
// rounds of plain, AES, plain, ChaCha. AES is paired with the plain run
// before it, ChaCha with the one before it, and the second plain run with
// the first is the A/A.
func streamFigure(o options) {
	n := int64(o.streamMiB) << 20
	plainA := &benches.Series{Name: "plain TCP (A)"}
	plainB := &benches.Series{Name: "plain TCP (A')"}
	aes := &benches.Series{Name: "Ferry AES-256-GCM"}
	chacha := &benches.Series{Name: "Ferry ChaCha20-Poly1305"}
	order := []struct {
		s    *benches.Series
		mode string
	}{{plainA, "plain"}, {aes, "aes"}, {plainB, "plain"}, {chacha, "chacha"}}
	var errs []string
	for round := range o.pairs {
		for _, step := range order {
			res, err := runStream(o, streamRun{mode: step.mode, bytes: n, prefetch: true})
			step.s.Add(res.mibps, err)
			if err != nil {
				errs = append(errs, fmt.Sprintf("round %d, %s: %v", round+1, step.s.Name, err))
			}
		}
	}
	say("## Stream over loopback TCP, sender and receiver in separate processes (%d MiB a run)\n\n", o.streamMiB)
	say("MiB/s:\n")
	say("\n")
	printTable("run", "%.0f", plainA, aes, plainB, chacha)
	say("\n")
	printTable("ratio", "%.3f",
		benches.Ratio("AES-256-GCM / plain (A)", aes, plainA),
		benches.Ratio("ChaCha20-Poly1305 / plain (A')", chacha, plainB),
		benches.Ratio("A/A: plain (A') / plain (A)", plainB, plainA))
	printErrors(errs)
}

func printErrors(errs []string) {
	if len(errs) == 0 {
		return
	}
	say("\n")
	say("Failed runs:\n")
	for _, e := range errs {
		say("- %s\n", e)
	}
}
