package secure

import (
	"context"
	"errors"
	"net"
	"testing"
)

// A busy responder answers the preamble and then refuses in place of
// message 2: the initiator's handshake fails with ErrBusy, not a timeout
// or a lost connection.
func TestRefuseBusyBeforeHandshake(t *testing.T) {
	a, _ := ids(t)
	refused := make(chan error, 1)
	addr := rawServer(t, func(nc net.Conn) { refused <- RefuseBusy(context.Background(), nc) })
	err := dialClient(t, addr, Config{Identity: a, Code: "123456"})
	if !errors.Is(err, ErrBusy) || errors.Is(err, ErrConnectionLost) {
		t.Fatalf("client: got %v, want ErrBusy", err)
	}
	if err := <-refused; err != nil {
		t.Fatalf("RefuseBusy: %v", err)
	}
}

// A handshake that completes after the responder became busy is refused
// at the initiator's first Read.
func TestRefuseBusyAfterHandshake(t *testing.T) {
	a, b := ids(t)
	cl, sv := pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456"})
	if cl.err != nil || sv.err != nil {
		t.Fatalf("client %v, server %v", cl.err, sv.err)
	}
	sv.c.RefuseBusy()
	cl.c.Write([]byte("offer"))
	cl.c.Flush()
	if _, err := cl.c.Read(make([]byte, 8)); !errors.Is(err, ErrBusy) {
		t.Fatalf("client read: got %v, want ErrBusy", err)
	}
}

// Guess decides whether message 3 is checked at all: a code retired
// meanwhile is refused unchecked as ErrCodeRetired, on both ends, and a
// checked right guess succeeds.
func TestGuess(t *testing.T) {
	a, b := ids(t)
	checked := false
	cl, sv := pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) bool { return true }})
	if !errors.Is(sv.err, ErrCodeRetired) || cl.err != nil {
		t.Fatalf("unchecked guess: client %v, server %v", cl.err, sv.err)
	}
	if _, err := cl.c.Read(make([]byte, 8)); !errors.Is(err, ErrCodeRetired) {
		t.Fatalf("client read: got %v, want ErrCodeRetired", err)
	}
	cl, sv = pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) bool { checked = check(); return false }})
	if cl.err != nil || sv.err != nil || !checked {
		t.Fatalf("checked right guess: client %v, server %v, check said %v", cl.err, sv.err, checked)
	}
	cl, sv = pipe(t, Config{Identity: a, Code: "654321"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) bool { checked = check(); return false }})
	if !errors.Is(sv.err, ErrWrongCode) || checked {
		t.Fatalf("checked wrong guess: server %v, check said %v", sv.err, checked)
	}
}
