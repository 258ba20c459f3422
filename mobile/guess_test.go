package mobile

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// Guessed at full speed, a phone's receiver reports OnCodesHeld, then
// OnCodesStopped; while stopped even the right code fails, with
// KindCodesHeld on the sender; NewCode brings a new code through
// OnCodeChanged, which works at once. About half a minute: the guess
// budget's back-off.
func TestCodesHeldAndStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("half a minute of guessing: skipped in short mode")
	}
	t.Parallel()
	phoneA, recvEv := newTestNode(t, "A")
	phoneB, sendEv := newTestNode(t, "B")
	opts := loopbackReceive(t)
	opts.AutoAccept = true
	rt, err := phoneA.Receive(opts)
	if err != nil {
		t.Fatal(err)
	}
	right := rt.Code()
	// send sends "hi" with code and returns the sender's failure kind
	// ("" on success).
	send := func(code string) string {
		st := sendHi(t, phoneB, rt.Port(), code)
		end := sendEv.terminal(t, st.ID(), waitLong)
		if end.method == "failed" {
			return end.fail.Kind
		}
		return ""
	}
	held := 0
	for i := 0; recvEv.count(rt.ID(), "stopped") == 0; i++ {
		wrong, _ := strconv.Atoi(right)
		switch kind := send(fmt.Sprintf("%06d", (wrong+1+i)%1_000_000)); kind {
		case KindCodesHeld:
			held++
		case KindWrongCode, KindCodeRetired:
		default:
			t.Fatalf("guess %d: %q", i+1, kind)
		}
		if i > 100_000 {
			t.Fatal("no OnCodesStopped after 100,000 guesses")
		}
	}
	if held == 0 || recvEv.count(rt.ID(), "held") == 0 {
		t.Fatalf("%d guesses held back, %d OnCodesHeld: want some of each", held, recvEv.count(rt.ID(), "held"))
	}
	if c := recvEv.wait(t, time.Second, func(c call) bool { return c.method == "stopped" }); c.arg != "12" {
		t.Errorf("OnCodesStopped(%s), want 12 wrong codes", c.arg)
	}
	if kind := send(rt.Code()); kind != KindCodesHeld {
		t.Fatalf("the shown code while stopped: %q, want %q", kind, KindCodesHeld)
	}
	from := recvEv.mark()
	if err := rt.NewCode(); err != nil {
		t.Fatal(err)
	}
	c := recvEv.waitFrom(t, waitLong, from, func(c call) bool { return c.method == "code" })
	if c.arg == "" || rt.Code() != c.arg {
		t.Fatalf("OnCodeChanged(%s), Code() %s", c.arg, rt.Code())
	}
	if kind := send(rt.Code()); kind != "" {
		t.Fatalf("the new code: %q", kind)
	}
	if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "finished" {
		t.Fatalf("receiver ended %s(%s)", end.method, end.arg)
	}
	if err := rt.NewCode(); err == nil {
		t.Error("NewCode after the transfer ended: no error")
	}
}
