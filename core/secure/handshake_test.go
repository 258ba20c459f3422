package secure

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

type result struct {
	c   *Conn
	err error
}

// pipe runs a real handshake over loopback TCP and returns both ends.
func pipe(t *testing.T, clientCfg, serverCfg Config) (client, server result) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan result, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			done <- result{nil, err}
			return
		}
		c, err := Server(context.Background(), nc, serverCfg)
		if err != nil {
			nc.Close()
		}
		done <- result{c, err}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Client(context.Background(), nc, clientCfg)
	if err != nil {
		nc.Close()
	}
	server = <-done
	t.Cleanup(func() {
		if c != nil {
			c.Close()
		}
		if server.c != nil {
			server.c.Close()
		}
	})
	return result{c, err}, server
}

func ids(t *testing.T) (*Identity, *Identity) {
	a, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestHandshakeAndStreamOverTCP(t *testing.T) {
	a, b := ids(t)
	for _, ciph := range []Cipher{AESGCM, ChaChaPoly} {
		t.Run(ciph.String(), func(t *testing.T) {
			cl, sv := pipe(t, Config{Identity: a, Code: "123456", Cipher: ciph}, Config{Identity: b, Code: "123456"})
			if cl.err != nil || sv.err != nil {
				t.Fatalf("client %v, server %v", cl.err, sv.err)
			}
			if cl.c.cipher.String() != ciph.String() || sv.c.cipher.String() != ciph.String() {
				t.Fatalf("ciphers %s/%s, want %s", cl.c.cipher.String(), sv.c.cipher.String(), ciph)
			}
			if !bytes.Equal(cl.c.PeerPublic(), b.Public()) || !bytes.Equal(sv.c.PeerPublic(), a.Public()) {
				t.Fatal("peer static keys do not match the identities")
			}
			if sv.c.PeerFingerprint() != a.Fingerprint() {
				t.Fatal("fingerprint mismatch")
			}
			// A large random stream in both directions at once.
			msg := randBytes(24<<20 + 12345)
			back := randBytes(3<<20 + 7)
			errc := make(chan error, 2)
			go func() {
				_, err := cl.c.Write(msg)
				if err == nil {
					err = cl.c.CloseWrite()
				}
				errc <- err
			}()
			go func() {
				_, err := sv.c.Write(back)
				if err == nil {
					err = sv.c.CloseWrite()
				}
				errc <- err
			}()
			gotBack, err := io.ReadAll(cl.c)
			if err != nil {
				t.Fatalf("client read: %v", err)
			}
			got := make([]byte, 0, len(msg))
			buf := make([]byte, ChunkSize)
			for {
				// Prefetch only what is known to follow, as the
				// transfer layer does.
				sv.c.Prefetch(min(ChunkSize, len(msg)-len(got)))
				n, err := io.ReadFull(sv.c, buf[:min(ChunkSize, max(1, len(msg)-len(got)))])
				got = append(got, buf[:n]...)
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					break
				}
				if err != nil {
					t.Fatalf("server read: %v", err)
				}
			}
			for range 2 {
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got, msg) || !bytes.Equal(gotBack, back) {
				t.Fatal("streams differ")
			}
		})
	}
}

func TestWrongCodeBothEnds(t *testing.T) {
	a, b := ids(t)
	for _, last := range []bool{false, true} {
		cl, sv := pipe(t, Config{Identity: a, Code: "111111"}, Config{Identity: b, Code: "222222", LastAttempt: last})
		want := ErrWrongCode
		if last {
			want = ErrCodeRetired
		}
		if !errors.Is(sv.err, want) {
			t.Fatalf("server: got %v, want %v", sv.err, want)
		}
		if cl.err != nil {
			t.Fatalf("client handshake should complete (it cannot know yet): %v", cl.err)
		}
		// The sender's first message goes out, then its first read learns
		// the truth, not "connection lost".
		cl.c.Write([]byte("offer"))
		cl.c.Flush()
		_, err := cl.c.Read(make([]byte, 10))
		if !errors.Is(err, want) {
			t.Fatalf("client read: got %v, want %v", err, want)
		}
		if errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrTruncated) {
			t.Fatalf("wrong code reported as a lost connection: %v", err)
		}
	}
}

func TestBadPSKRefused(t *testing.T) {
	for _, n := range []int{0, 16, 31, 33} {
		if err := setPSK(nil, make([]byte, n)); !errors.Is(err, ErrBadPSK) {
			t.Errorf("psk of %d bytes: got %v, want ErrBadPSK", n, err)
		}
	}
	if len(derivePSK([]byte("k"))) != 32 {
		t.Fatal("derived psk is not 32 bytes")
	}
}

// rawPeer accepts one connection and hands it to fn.
func rawServer(t *testing.T, fn func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		fn(nc)
	}()
	return ln.Addr().String()
}

func dialClient(t *testing.T, addr string, cfg Config) error {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_, err = Client(context.Background(), nc, cfg)
	return err
}

func TestBadPreambles(t *testing.T) {
	a, b := ids(t)
	// The client meets a server that is not Ferry, and a newer Ferry.
	addr := rawServer(t, func(nc net.Conn) { nc.Write([]byte("HTTP/1.1 400\r\n")) })
	if err := dialClient(t, addr, Config{Identity: a, Code: "1"}); !errors.Is(err, ErrNotFerry) {
		t.Errorf("garbage from server: got %v, want ErrNotFerry", err)
	}
	addr = rawServer(t, func(nc net.Conn) {
		p := makePreamble(ProtocolVersion+1, byte(AESGCM))
		nc.Write(p[:])
		io.Copy(io.Discard, nc)
	})
	err := dialClient(t, addr, Config{Identity: a, Code: "1"})
	if !errors.Is(err, ErrIncompatibleVersion) || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("newer server: got %v, want ErrIncompatibleVersion naming version 2", err)
	}
	// The server meets a client that is not Ferry, and a newer Ferry,
	// which must learn our version.
	serve := func(send []byte) (error, []byte) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		defer ln.Close()
		got := make(chan []byte, 1)
		go func() {
			nc, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				got <- nil
				return
			}
			defer nc.Close()
			nc.Write(send)
			b, _ := io.ReadAll(nc)
			got <- b
		}()
		nc, _ := ln.Accept()
		_, err := Server(context.Background(), nc, Config{Identity: b, Code: "1", Timeout: 2 * time.Second})
		nc.Close()
		return err, <-got
	}
	if err, _ := serve([]byte("GET / HTTP/1.1\r\n\r\n")); !errors.Is(err, ErrNotFerry) {
		t.Errorf("garbage from client: got %v, want ErrNotFerry", err)
	}
	newer := makePreamble(ProtocolVersion+1, 0)
	err, reply := serve(newer[:])
	if !errors.Is(err, ErrIncompatibleVersion) {
		t.Errorf("newer client: got %v, want ErrIncompatibleVersion", err)
	}
	if len(reply) != preambleSize || reply[len(magic)] != ProtocolVersion {
		t.Errorf("newer client was told %q, want our preamble with version %d", reply, ProtocolVersion)
	}
	bad := makePreamble(ProtocolVersion, 0xF0)
	if err, _ := serve(bad[:]); !errors.Is(err, ErrNotFerry) {
		t.Errorf("bad cipher offer: got %v, want ErrNotFerry", err)
	}
}

func TestStalledPeerTimesOut(t *testing.T) {
	a, b := ids(t)
	running := testkit.Running()
	// A server that reads the preamble and then says nothing.
	addr := rawServer(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
	err := dialClient(t, addr, Config{Identity: a, Code: "1", Timeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrHandshakeTimeout) {
		t.Fatalf("client: got %v, want ErrHandshakeTimeout", err)
	}
	// A client that sends half a message 1 and stalls.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		nc, _ := net.Dial("tcp", ln.Addr().String())
		p := makePreamble(ProtocolVersion, 0)
		nc.Write(append(p[:], 0, 40, 1, 2))
		io.Copy(io.Discard, nc)
		nc.Close()
	}()
	nc, _ := ln.Accept()
	_, err = Server(context.Background(), nc, Config{Identity: b, Code: "1", Timeout: 200 * time.Millisecond})
	nc.Close()
	if !errors.Is(err, ErrHandshakeTimeout) {
		t.Fatalf("server: got %v, want ErrHandshakeTimeout", err)
	}
	// Cancelling the context ends a handshake at once, with the cause.
	ctx, cancel := context.WithCancelCause(context.Background())
	addr = rawServer(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
	nc2, _ := net.Dial("tcp", addr)
	defer nc2.Close()
	cause := errors.New("user pressed cancel")
	go cancel(cause)
	if _, err := Client(ctx, nc2, Config{Identity: a, Code: "1"}); !errors.Is(err, cause) {
		t.Fatalf("cancelled: got %v, want the cause", err)
	}
	// The raw servers' goroutines end at Cleanup.
	if left := running.Leaked(testkit.LeakLimit, "rawServer"); left != "" {
		t.Fatalf("goroutines leaked:\n%s", left)
	}
}

func TestCipherNegotiation(t *testing.T) {
	for _, tc := range []struct {
		clientHW, serverHW bool
		clientWant         Cipher
		serverWant         Cipher
		want               Cipher
	}{
		{true, true, Auto, Auto, AESGCM},
		{true, false, Auto, Auto, ChaChaPoly},
		{false, true, Auto, Auto, ChaChaPoly},
		{false, false, Auto, Auto, ChaChaPoly},
		{true, true, ChaChaPoly, Auto, ChaChaPoly},
		{false, false, AESGCM, Auto, AESGCM},
		{true, true, Auto, ChaChaPoly, ChaChaPoly},
		{true, true, AESGCM, ChaChaPoly, AESGCM}, // the initiator's insistence wins
	} {
		offer := offerFor(tc.clientWant, false, tc.clientHW)
		got, err := choose(offer, tc.serverWant, tc.serverHW)
		if err != nil || got != tc.want {
			t.Errorf("%+v: got %v (%v), want %v", tc, got, err, tc.want)
		}
	}
}

// A record length cannot exceed 65,535 (it has two bytes), but a
// handshake message has a far lower limit, checked before anything is
// read or allocated.
func TestHandshakeLengthOverLimit(t *testing.T) {
	_, b := ids(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return
		}
		defer nc.Close()
		p := makePreamble(ProtocolVersion, 0)
		nc.Write(append(p[:], 0xFF, 0xFF))
		io.Copy(io.Discard, nc)
	}()
	nc, _ := ln.Accept()
	defer nc.Close()
	_, err := Server(context.Background(), nc, Config{Identity: b, Code: "1", Timeout: 5 * time.Second})
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "65535") {
		t.Fatalf("got %v, want ErrMalformed naming the length", err)
	}
}
