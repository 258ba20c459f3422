package secure

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"strconv"
	"strings"
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
// meanwhile is refused unchecked as ErrCodeRetired, a guess held back by
// the caller's budget as ErrCodesHeld (even the right code), on both
// ends, and a checked right guess succeeds.
func TestGuess(t *testing.T) {
	a, b := ids(t)
	checked := false
	cl, sv := pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) GuessAnswer { return Retired }})
	if !errors.Is(sv.err, ErrCodeRetired) || cl.err != nil {
		t.Fatalf("unchecked guess: client %v, server %v", cl.err, sv.err)
	}
	if _, err := cl.c.Read(make([]byte, 8)); !errors.Is(err, ErrCodeRetired) {
		t.Fatalf("client read: got %v, want ErrCodeRetired", err)
	}
	cl, sv = pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) GuessAnswer { return Held }})
	if !errors.Is(sv.err, ErrCodesHeld) || cl.err != nil {
		t.Fatalf("held guess: client %v, server %v", cl.err, sv.err)
	}
	if _, err := cl.c.Read(make([]byte, 8)); !errors.Is(err, ErrCodesHeld) {
		t.Fatalf("client read: got %v, want ErrCodesHeld", err)
	}
	cl, sv = pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) GuessAnswer { checked = check(); return Wrong }})
	if cl.err != nil || sv.err != nil || !checked {
		t.Fatalf("checked right guess: client %v, server %v, check said %v", cl.err, sv.err, checked)
	}
	cl, sv = pipe(t, Config{Identity: a, Code: "654321"}, Config{Identity: b, Code: "123456",
		Guess: func(check func() bool) GuessAnswer { checked = check(); return Wrong }})
	if !errors.Is(sv.err, ErrWrongCode) || checked {
		t.Fatalf("checked wrong guess: server %v, check said %v", sv.err, checked)
	}
}

// TestEveryRejectionIsARejection: every rejection reason this package
// declares (each reject* constant in refuse.go, found in the source so
// that a new one cannot be left out) means an error to the end that
// reads it, and IsRejection reports that error, so the engine never
// answers a peer that already refused and closed. An unknown reason is
// malformed, not a rejection.
func TestEveryRejectionIsARejection(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "refuse.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []byte
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "reject") {
					continue
				}
				v, err := strconv.Atoi(vs.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: %v", n.Name, err)
				}
				reasons = append(reasons, byte(v))
			}
		}
	}
	if len(reasons) < 7 {
		t.Fatalf("found only %d rejection reasons in refuse.go: %v", len(reasons), reasons)
	}
	for _, r := range reasons {
		meant := 0
		for _, meaning := range []func(byte) error{fromResponder, fromInitiator} {
			err := meaning(r)
			if errors.Is(err, ErrMalformed) {
				continue
			}
			meant++
			if !IsRejection(err) {
				t.Errorf("reason %d: %v is not a rejection to IsRejection", r, err)
			}
		}
		if meant == 0 {
			t.Errorf("reason %d means nothing to either end", r)
		}
	}
	if err := fromResponder(255); IsRejection(err) {
		t.Errorf("an unknown reason is a rejection: %v", err)
	}
}

// A responder that takes paired mode only (Paired set, no Code) refuses
// a code-mode initiator in place of message 2, before CPace: the
// initiator's handshake fails with ErrNoCodes, the responder's too, and
// no guess is ever checked (Guess is not called). A paired initiator
// still gets through.
func TestNoCodesRefusedBeforeGuess(t *testing.T) {
	a, b := ids(t)
	guessed := false
	pinned := func(key []byte) bool { return string(key) == string(a.Public()) }
	cl, sv := pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Paired: pinned,
		Guess: func(check func() bool) GuessAnswer { guessed = true; return Wrong }})
	if !errors.Is(cl.err, ErrNoCodes) || !errors.Is(sv.err, ErrNoCodes) || guessed {
		t.Fatalf("a code at a paired-only responder: client %v, server %v, guessed %v", cl.err, sv.err, guessed)
	}
	if errors.Is(cl.err, ErrConnectionLost) || errors.Is(cl.err, ErrNotPaired) {
		t.Fatalf("client: %v, want ErrNoCodes alone", cl.err)
	}
	cl, sv = pipe(t, Config{Identity: a, PeerKey: b.Public()}, Config{Identity: b, Paired: pinned})
	if cl.err != nil || sv.err != nil {
		t.Fatalf("paired at a paired-only responder: client %v, server %v", cl.err, sv.err)
	}
}

// A busy refusal with a count reaches the initiator as a *BusyError, in
// the handshake's place and after it; without one, as plain ErrBusy.
func TestRefuseBusyWithCount(t *testing.T) {
	a, b := ids(t)
	check := func(what string, err error, running int) {
		t.Helper()
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("%s, running %d: got %v, want ErrBusy", what, running, err)
		}
		var be *BusyError
		if got := errors.As(err, &be); got != (running > 0) || (got && be.Running != running) {
			t.Fatalf("%s, running %d: got %v", what, running, err)
		}
		if running == 4 && !strings.Contains(err.Error(), "4 transfers") {
			t.Fatalf("%s: the message does not say how many: %v", what, err)
		}
	}
	for _, running := range []int{0, 1, 4} {
		refused := make(chan error, 1)
		addr := rawServer(t, func(nc net.Conn) { refused <- RefuseBusyWith(context.Background(), nc, running) })
		check("before the handshake", dialClient(t, addr, Config{Identity: a, Code: "123456"}), running)
		if err := <-refused; err != nil {
			t.Fatalf("RefuseBusyWith: %v", err)
		}

		cl, sv := pipe(t, Config{Identity: a, Code: "123456"}, Config{Identity: b, Code: "123456"})
		if cl.err != nil || sv.err != nil {
			t.Fatalf("client %v, server %v", cl.err, sv.err)
		}
		sv.c.RefuseBusyWith(running)
		cl.c.Write([]byte("offer"))
		cl.c.Flush()
		_, err := cl.c.Read(make([]byte, 8))
		check("after the handshake", err, running)
	}
}
