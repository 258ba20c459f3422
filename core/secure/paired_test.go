package secure

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// pins returns a Paired func that trusts exactly keys, and fails the test
// if a code-mode Guess would be consulted: paired mode never counts as a
// wrong code.
func pins(keys ...[]byte) func([]byte) bool {
	return func(k []byte) bool {
		for _, p := range keys {
			if bytes.Equal(p, k) {
				return true
			}
		}
		return false
	}
}

func noGuess(t *testing.T) func(func() bool) GuessAnswer {
	return func(func() bool) GuessAnswer {
		t.Error("a paired-mode handshake consulted the code's guess count")
		return Wrong
	}
}

func TestPairedHandshake(t *testing.T) {
	a, b := ids(t)
	for _, ciph := range []Cipher{AESGCM, ChaChaPoly} {
		t.Run(ciph.String(), func(t *testing.T) {
			cl, sv := pipe(t, Config{Identity: a, PeerKey: b.Public(), Cipher: ciph},
				Config{Identity: b, Code: "123456", Paired: pins(a.Public()), Guess: noGuess(t)})
			if cl.err != nil || sv.err != nil {
				t.Fatalf("client %v, server %v", cl.err, sv.err)
			}
			if !cl.c.Paired() || !sv.c.Paired() || cl.c.cipher.String() != ciph.String() {
				t.Fatalf("paired %v/%v, cipher %s", cl.c.Paired(), sv.c.Paired(), cl.c.cipher.String())
			}
			if !bytes.Equal(cl.c.PeerPublic(), b.Public()) || !bytes.Equal(sv.c.PeerPublic(), a.Public()) {
				t.Fatal("peer keys do not match the identities")
			}
			msg := randBytes(3*MaxPlaintext + 5)
			go func() { cl.c.Write(msg); cl.c.CloseWrite() }()
			got, err := io.ReadAll(sv.c)
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("stream: %v (%d of %d bytes)", err, len(got), len(msg))
			}
		})
	}
	// Code mode is not paired.
	cl, sv := pipe(t, Config{Identity: a, Code: "1"}, Config{Identity: b, Code: "1", Paired: pins(a.Public())})
	if cl.err != nil || sv.err != nil || cl.c.Paired() || sv.c.Paired() {
		t.Fatalf("code mode: client %v, server %v", cl.err, sv.err)
	}
}

// The responder removed its pin for the initiator: both ends learn they
// are not paired, the initiator at its first read.
func TestPairedPinRemoved(t *testing.T) {
	a, b := ids(t)
	cl, sv := pipe(t, Config{Identity: a, PeerKey: b.Public()},
		Config{Identity: b, Code: "123456", Paired: pins(), Guess: noGuess(t)})
	if !errors.Is(sv.err, ErrNotPaired) {
		t.Fatalf("server: got %v, want ErrNotPaired", sv.err)
	}
	if cl.err != nil {
		t.Fatalf("client handshake should complete (it cannot know yet): %v", cl.err)
	}
	cl.c.Write([]byte("offer"))
	cl.c.Flush()
	_, err := cl.c.Read(make([]byte, 8))
	if !errors.Is(err, ErrNotPaired) || !strings.Contains(err.Error(), "does not trust this one") {
		t.Fatalf("client read: got %v, want ErrNotPaired saying the other device does not trust this one", err)
	}
	t.Logf("initiator: %v; responder: %v", err, sv.err)
}

// The initiator's pin is stale (the responder made a new key) or the
// responder is an impostor: the initiator refuses before message 3,
// naming both fingerprints, and the responder is told its key does not
// match the sender's pin.
func TestPairedKeyChanged(t *testing.T) {
	a, b := ids(t)
	_, old := ids(t)
	cl, sv := pipe(t, Config{Identity: a, PeerKey: old.Public()},
		Config{Identity: b, Code: "123456", Paired: pins(a.Public()), Guess: noGuess(t)})
	if !errors.Is(cl.err, ErrKeyChanged) || !strings.Contains(cl.err.Error(), old.Fingerprint()) ||
		!strings.Contains(cl.err.Error(), b.Fingerprint()) {
		t.Fatalf("client: got %v, want ErrKeyChanged naming %s and %s", cl.err, old.Fingerprint(), b.Fingerprint())
	}
	if !errors.Is(sv.err, ErrNotPaired) || !strings.Contains(sv.err.Error(), "does not match") {
		t.Fatalf("server: got %v, want ErrNotPaired saying the pin does not match", sv.err)
	}
	t.Logf("initiator: %v; responder: %v", cl.err, sv.err)
}

// An impostor initiator with a key of its own is refused by a responder
// that pinned the real one.
func TestPairedImpostorInitiator(t *testing.T) {
	real, b := ids(t)
	impostor, _ := ids(t)
	cl, sv := pipe(t, Config{Identity: impostor, PeerKey: b.Public()},
		Config{Identity: b, Code: "123456", Paired: pins(real.Public()), Guess: noGuess(t)})
	if !errors.Is(sv.err, ErrNotPaired) || !strings.Contains(sv.err.Error(), impostor.Fingerprint()) {
		t.Fatalf("server: got %v, want ErrNotPaired naming the impostor", sv.err)
	}
	if cl.err == nil {
		if _, err := cl.c.Read(make([]byte, 8)); !errors.Is(err, ErrNotPaired) {
			t.Fatalf("impostor read: got %v, want ErrNotPaired", err)
		}
	}
}

// A responder that accepts no paired mode refuses in place of message 2.
func TestPairedNotAccepted(t *testing.T) {
	a, b := ids(t)
	cl, sv := pipe(t, Config{Identity: a, PeerKey: b.Public()}, Config{Identity: b, Code: "123456", Guess: noGuess(t)})
	if !errors.Is(cl.err, ErrNotPaired) || !errors.Is(sv.err, ErrNotPaired) {
		t.Fatalf("client %v, server %v; want ErrNotPaired on both", cl.err, sv.err)
	}
	t.Logf("initiator: %v", cl.err)
}

func TestModeConfigErrors(t *testing.T) {
	a, b := ids(t)
	for _, cfg := range []Config{
		{Identity: a, Code: "1", PeerKey: b.Public()},
		{Identity: a, PeerKey: []byte("short")},
		{Identity: a},
	} {
		nc, peer := net.Pipe()
		_, err := Client(context.Background(), nc, cfg)
		nc.Close()
		peer.Close()
		if err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// A middlebox that turns paired mode into code mode, or code mode into
// paired mode, makes the handshake fail: both preambles are the Noise
// prologue. Neither attempt reaches the code's guess count.
func TestModeBitFlipped(t *testing.T) {
	a, b := ids(t)
	for _, paired := range []bool{true, false} {
		cfg := Config{Identity: a, Code: "123456"}
		if paired {
			cfg = Config{Identity: a, PeerKey: b.Public()}
		}
		served := make(chan error, 1)
		addr := rawServer(t, func(nc net.Conn) {
			_, err := Server(context.Background(), nc, Config{Identity: b, Code: "123456", Paired: pins(a.Public()), Guess: noGuess(t)})
			served <- err
		})
		// A middlebox rewriting the preamble.
		flip := &testkit.FlipByte{At: int64(len(magic) + 1), Bit: offerPaired}
		nc, err := net.Dial("tcp", testkit.StartProxy(t, addr, flip).Addr)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Client(context.Background(), nc, cfg)
		if err == nil {
			_, err = c.Read(make([]byte, 1))
		}
		nc.Close()
		if err == nil {
			t.Fatalf("paired=%v: a flipped mode bit went unnoticed", paired)
		}
		if serr := <-served; serr == nil {
			t.Fatalf("paired=%v: the responder accepted a flipped mode bit", paired)
		} else {
			t.Logf("paired=%v: initiator %v; responder %v", paired, err, serr)
		}
	}
}
