// Command streambench runs one stream of benches/cmd/ferrybench's stream
// and calls figures: N bytes from a sender process to a receiver process
// over loopback TCP, plain or through core/secure, with the stream's
// knobs (core/internal/streamtune) set as asked.
//
// It lives under core/internal because the knobs are internal to core/:
// ferrybench builds it (go build -trimpath), checks that build as it
// checks bin/ferry (benches.CheckBuild on the binary's build
// information), and runs it once per run. Nothing under core/ imports
// benches/, so it checks no build itself: run it through ferrybench.
//
// Usage:
//
//	streambench -mode plain|aes|chacha -bytes N [-batch N] [-unbuffered] [-prefetch] [-timeout D]
//
// It is the receiver: it listens on 127.0.0.1, starts itself again as
// the sender (-send -addr ADDR), and prints one JSON line on stdout:
//
//	{"mibps":…,"socket_writes":…,"socket_reads":…}
//
// or {"err":"…"} with exit status 1 when the run failed (socket_writes
// and socket_reads are kept when known). The sender prints
// {"socket_writes":…} or {"err":"…"} the same way.
//
// Both ends write and read in secure.ChunkSize pieces whatever the mode,
// so plain TCP and the encrypted stream differ only by the encryption.
// The clock runs on the receiver from the moment it tells the sender to
// go (one byte, after the handshake) until it has read the end of
// stream, so the handshake and process start-up are outside it.
//
// -batch is streamtune.Knobs.Batch on the sender (0: the default),
// -unbuffered is streamtune.Knobs.Unbuffered on the receiver, and
// -prefetch makes the receiver call Prefetch before each chunk.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/internal/streamtune"
	"github.com/ferry-project/ferry/core/secure"
)

const code = "271828"

// report is the one JSON line each end prints.
type report struct {
	Err          string  `json:"err,omitempty"`
	MiBps        float64 `json:"mibps,omitempty"`
	SocketWrites int64   `json:"socket_writes,omitempty"` // sender's write calls
	SocketReads  int64   `json:"socket_reads,omitempty"`  // receiver's read calls
}

type run struct {
	mode       string // plain, aes, chacha
	bytes      int64
	batch      int
	unbuffered bool
	prefetch   bool
	timeout    time.Duration
}

func main() {
	var r run
	send := flag.Bool("send", false, "be the sender (started by the receiver)")
	addr := flag.String("addr", "", "the receiver's address (with -send)")
	flag.StringVar(&r.mode, "mode", "plain", "plain, aes or chacha")
	flag.Int64Var(&r.bytes, "bytes", 0, "bytes to move")
	flag.IntVar(&r.batch, "batch", 0, "streamtune.Knobs.Batch on the sender (0: the default)")
	flag.BoolVar(&r.unbuffered, "unbuffered", false, "streamtune.Knobs.Unbuffered on the receiver")
	flag.BoolVar(&r.prefetch, "prefetch", false, "the receiver calls Prefetch before each chunk")
	flag.DurationVar(&r.timeout, "timeout", time.Minute, "longest the run may take before it is stopped and counted as failed")
	flag.Parse()
	var rep report
	if r.mode != "plain" && r.mode != "aes" && r.mode != "chacha" {
		rep.Err = fmt.Sprintf("no mode %q (have plain, aes, chacha)", r.mode)
	} else if *send {
		rep = sender(*addr, r)
	} else {
		rep = receive(r)
	}
	json.NewEncoder(os.Stdout).Encode(rep)
	if rep.Err != "" {
		os.Exit(1)
	}
}

func cipherOf(mode string) secure.Cipher {
	if mode == "chacha" {
		return secure.ChaChaPoly
	}
	return secure.AESGCM
}

// receive starts the sender and receives its stream.
func receive(r run) (res report) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return report{Err: err.Error()}
	}
	defer ln.Close()
	exe, err := os.Executable()
	if err != nil {
		return report{Err: err.Error()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-send", "-addr", ln.Addr().String(), "-mode", r.mode,
		"-bytes", strconv.FormatInt(r.bytes, 10), "-batch", strconv.Itoa(r.batch))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return report{Err: fmt.Sprintf("starting the sender: %v", err)}
	}
	// Whatever happens here, the sender is waited for and its error kept.
	recvErr := receiveStream(ln.(*net.TCPListener), r, &res)
	if recvErr != nil {
		cancel()
	}
	rep, sendErr := waitSender(cmd, &stdout, &stderr)
	res.SocketWrites = rep.SocketWrites
	if recvErr != nil {
		res.MiBps = 0
		res.Err = fmt.Sprintf("receiver: %v (sender: %v)", recvErr, sendErr)
	} else if sendErr != nil {
		res.MiBps = 0
		res.Err = fmt.Sprintf("sender: %v", sendErr)
	}
	return res
}

// receiveStream accepts the sender, reads r.bytes and the end of stream,
// and fills in res's speed and read calls.
func receiveStream(ln *net.TCPListener, r run, res *report) error {
	ln.SetDeadline(time.Now().Add(r.timeout))
	nc, err := ln.Accept()
	if err != nil {
		return fmt.Errorf("accepting: %w", err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(r.timeout))
	var (
		rw    io.ReadWriter
		flush = func() error { return nil }
		pre   = func(int) error { return nil }
		sc    *secure.Conn
		cr    = &counting{fn: nc.Read}
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
	res.MiBps = float64(r.bytes) / (1 << 20) / time.Since(start).Seconds()
	if sc != nil {
		res.SocketReads = sc.Stats().SocketReads
	} else {
		res.SocketReads = cr.calls
	}
	return nil
}

// waitSender returns the sender's report, and an error if it failed.
func waitSender(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) (report, error) {
	err := cmd.Wait()
	var rep report
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &rep)
	switch {
	case rep.Err != "":
		return rep, errors.New(rep.Err)
	case err != nil:
		return rep, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	case jerr != nil:
		return rep, fmt.Errorf("the sender printed no report: %v", jerr)
	}
	return rep, nil
}

// sender dials the receiver, waits for its go byte and sends r.bytes.
func sender(addr string, r run) report {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return report{Err: fmt.Sprintf("dialing: %v", err)}
	}
	defer nc.Close()
	var (
		rd    io.Reader
		w     io.Writer
		sc    *secure.Conn
		cw    = &counting{fn: nc.Write}
		close = func() error { return nc.(*net.TCPConn).CloseWrite() }
	)
	if r.mode == "plain" {
		rd, w = nc, cw
	} else {
		id, err := secure.NewIdentity()
		if err != nil {
			return report{Err: err.Error()}
		}
		ctx := streamtune.With(context.Background(), streamtune.Knobs{Batch: r.batch})
		sc, err = secure.Client(ctx, nc, secure.Config{Identity: id, Code: code, Cipher: cipherOf(r.mode)})
		if err != nil {
			return report{Err: fmt.Sprintf("handshake: %v", err)}
		}
		rd, w, close = sc, sc, sc.CloseWrite
	}
	var goByte [1]byte
	if _, err := io.ReadFull(rd, goByte[:]); err != nil {
		return report{Err: fmt.Sprintf("waiting for the receiver: %v", err)}
	}
	// Noise, the same every run, that nothing on the way can compress.
	buf := make([]byte, secure.ChunkSize)
	rand.NewChaCha8([32]byte{}).Read(buf)
	for left := r.bytes; left > 0; {
		n := int(min(int64(len(buf)), left))
		if _, err := w.Write(buf[:n]); err != nil {
			return report{Err: fmt.Sprintf("writing: %v", err)}
		}
		left -= int64(n)
	}
	if err := close(); err != nil {
		return report{Err: fmt.Sprintf("closing: %v", err)}
	}
	rep := report{SocketWrites: cw.calls}
	if sc != nil {
		rep.SocketWrites = sc.Stats().SocketWrites
	}
	return rep
}

// counting counts the calls to fn, a connection's Read or Write, and
// passes them on: it stands for whichever of the two fn is, so it is
// handed on only as an io.Reader or only as an io.Writer.
type counting struct {
	fn    func([]byte) (int, error)
	calls int64
}

func (c *counting) Read(p []byte) (int, error) {
	c.calls++
	return c.fn(p)
}

func (c *counting) Write(p []byte) (int, error) {
	c.calls++
	return c.fn(p)
}
