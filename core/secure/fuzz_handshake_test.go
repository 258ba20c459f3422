package secure

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// The handshake targets play the other end of a real Client or Server
// from fuzz bytes: what the peer sends is the input, written into a
// net.Pipe and then closed, while everything the end under test writes is
// drained. A peer cannot forge message 2 or 3 (they depend on the other
// end's fresh ephemeral key), so these reach the preamble, the frame
// lengths, message 1 or 2 and CPace's decoding, and the rejection path;
// FuzzRecordReader covers the stream behind them. Each asserts only what
// must hold for any input: no panic, exactly one of a Conn and an error,
// and no goroutine left behind.

// fuzzCode is the code both fuzzed ends use; the fuzzer never learns it
// in a way that matters, since CPace's messages depend on fresh secrets.
const fuzzCode = "493817"

// FuzzResponder drives Server with arbitrary initiator bytes. The
// server accepts both modes, as a receiver with pinned devices does, so
// the preamble's paired bit picks the branch.
func FuzzResponder(f *testing.F) {
	id, pinned := fuzzIdentity(f), fuzzIdentity(f)
	toServer, _ := captureHandshake(f, false)
	pairedToServer, _ := captureHandshake(f, true)
	for _, s := range append(handshakeSeeds(toServer), handshakeSeeds(pairedToServer)...) {
		f.Add(s)
	}
	// A paired initiator that found the wrong key sends a rejection in
	// place of message 3.
	f.Add(append(firstFrames(pairedToServer, 1), 0, 0, rejectKeyChanged))
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzEnd(t, in, func(ctx context.Context, nc net.Conn, cfg Config) (*Conn, error) {
			cfg.Identity = id
			cfg.Code = fuzzCode
			cfg.Paired = func(k []byte) bool { return bytes.Equal(k, pinned.Public()) }
			return Server(ctx, nc, cfg)
		})
	})
}

// FuzzInitiator drives Client in code mode with arbitrary responder
// bytes.
func FuzzInitiator(f *testing.F) {
	id := fuzzIdentity(f)
	_, toClient := captureHandshake(f, false)
	for _, s := range handshakeSeeds(toClient) {
		f.Add(s)
	}
	// The rejections a responder sends: after message 2's successor, or
	// in place of message 2 when busy.
	f.Add(append(bytes.Clone(toClient), 0, 0, rejectWrongCode))
	f.Add(append(bytes.Clone(toClient), 0, 0, rejectCodeRetired))
	f.Add(append(bytes.Clone(toClient), 0, 0, rejectCodesHeld))
	f.Add(append(firstFrames(toClient, 0), 0, 0, rejectBusy))
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzEnd(t, in, func(ctx context.Context, nc net.Conn, cfg Config) (*Conn, error) {
			cfg.Identity = id
			cfg.Code = fuzzCode
			return Client(ctx, nc, cfg)
		})
	})
}

// FuzzInitiatorPaired drives Client in paired mode (a pinned responder
// key, no code) with arbitrary responder bytes.
func FuzzInitiatorPaired(f *testing.F) {
	id, pinned := fuzzIdentity(f), fuzzIdentity(f)
	_, toClient := captureHandshake(f, true)
	for _, s := range handshakeSeeds(toClient) {
		f.Add(s)
	}
	for _, r := range []byte{rejectBusy, rejectPairedOff, rejectNotPaired} {
		f.Add(append(firstFrames(toClient, 0), 0, 0, r))
	}
	f.Add(append(bytes.Clone(toClient), 0, 0, rejectNotPaired))
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzEnd(t, in, func(ctx context.Context, nc net.Conn, cfg Config) (*Conn, error) {
			cfg.Identity = id
			cfg.PeerKey = pinned.Public()
			return Client(ctx, nc, cfg)
		})
	})
}

// fuzzEnd runs one end of the handshake against a peer that sends in and
// then hangs up.
func fuzzEnd(t *testing.T, in []byte, run func(context.Context, net.Conn, Config) (*Conn, error)) {
	running := testkit.Running()
	mine, peer := net.Pipe()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		peer.Write(in)
		// Closing ends the input with EOF, so the end under test never
		// waits for its timeout; what it writes afterwards fails, which it
		// must survive too.
		peer.Close()
	}()
	go func() {
		defer wg.Done()
		io.Copy(io.Discard, peer)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	// The timeout only bounds a stall the input cannot cause; hitting it
	// would show as a slow fuzzer, not a failure.
	c, err := run(ctx, mine, Config{Timeout: 2 * time.Second})
	cancel()
	if (c == nil) == (err == nil) {
		t.Fatalf("handshake returned conn %v and error %v", c, err)
	}
	if c != nil {
		c.Close()
	}
	mine.Close()
	wg.Wait()
	if stacks := running.Leaked(2 * time.Second); stacks != "" {
		t.Fatalf("goroutines left behind:\n%s", stacks)
	}
}

func fuzzIdentity(f *testing.F) *Identity {
	id, err := NewIdentity()
	if err != nil {
		f.Fatal(err)
	}
	return id
}

// captureHandshake runs one real handshake, in code or paired mode, over
// net.Pipe and returns the bytes each end sent until its handshake
// returned, to seed the targets past the framing.
func captureHandshake(f *testing.F, paired bool) (toServer, toClient []byte) {
	cn, sn := net.Pipe()
	cr, sr := &recorder{Conn: cn}, &recorder{Conn: sn}
	client, server := fuzzIdentity(f), fuzzIdentity(f)
	ccfg, scfg := Config{Identity: client, Code: fuzzCode}, Config{Identity: server, Code: fuzzCode}
	if paired {
		ccfg.Code, ccfg.PeerKey = "", server.Public()
		scfg.Paired = func(k []byte) bool { return bytes.Equal(k, client.Public()) }
	}
	type end struct {
		sent []byte
		err  error
	}
	done := make(chan end, 1)
	go func() {
		_, err := Server(context.Background(), sr, scfg)
		done <- end{bytes.Clone(sr.sent.Bytes()), err}
	}()
	_, err := Client(context.Background(), cr, ccfg)
	toServer = bytes.Clone(cr.sent.Bytes())
	srv := <-done
	// The Conns are dropped unclosed: Close would write an end of stream
	// that no one reads from a net.Pipe.
	cn.Close()
	sn.Close()
	if err != nil || srv.err != nil {
		f.Fatalf("seed handshake (paired %v): client %v, server %v", paired, err, srv.err)
	}
	return toServer, srv.sent
}

// firstFrames returns the preamble and the first n handshake frames of a
// captured exchange.
func firstFrames(b []byte, n int) []byte {
	end := preambleSize
	for ; n > 0 && end+lenSize <= len(b); n-- {
		end += lenSize + int(binary.BigEndian.Uint16(b[end:]))
	}
	return bytes.Clone(b[:min(end, len(b))])
}

// handshakeSeeds cuts a real exchange at each boundary, and adds the
// inputs that must fail early.
func handshakeSeeds(real []byte) [][]byte {
	old := makePreamble(ProtocolVersion+1, 0)
	out := [][]byte{
		real,
		real[:preambleSize],
		real[:preambleSize+lenSize],
		[]byte("GET / HTTP/1.1\r\n\r\n"),
		old[:],
		{},
	}
	return out
}

// recorder is a net.Conn that keeps a copy of what it writes.
type recorder struct {
	net.Conn
	sent bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	r.sent.Write(p)
	return r.Conn.Write(p)
}
