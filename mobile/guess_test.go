package mobile

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// Guessed at full speed, a phone's receiver reports codes_held, then
// codes_stopped; while stopped even the right code fails, with
// KindCodesHeld on the sender; NewCode brings a new code through
// code_changed, which works at once. About half a minute: the guess
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
		if end.method == "error" {
			return end.fail.Kind
		}
		return ""
	}
	held := 0
	for i := 0; recvEv.count(rt.ID(), "codes_stopped") == 0; i++ {
		wrong, _ := strconv.Atoi(right)
		switch kind := send(fmt.Sprintf("%06d", (wrong+1+i)%1_000_000)); kind {
		case KindCodesHeld:
			held++
		case KindWrongCode, KindCodeRetired:
		default:
			t.Fatalf("guess %d: %q", i+1, kind)
		}
		if i > 100_000 {
			t.Fatal("no codes_stopped after 100,000 guesses")
		}
	}
	if held == 0 || recvEv.count(rt.ID(), "codes_held") == 0 {
		t.Fatalf("%d guesses held back, %d codes_held: want some of each", held, recvEv.count(rt.ID(), "codes_held"))
	}
	if c := recvEv.wait(t, time.Second, func(c call) bool { return c.method == "codes_stopped" }); c.arg != "12" {
		t.Errorf("codes_stopped(%s), want 12 wrong codes", c.arg)
	}
	if kind := send(rt.Code()); kind != KindCodesHeld {
		t.Fatalf("the shown code while stopped: %q, want %q", kind, KindCodesHeld)
	}
	from := recvEv.mark()
	if err := rt.NewCode(); err != nil {
		t.Fatal(err)
	}
	c := recvEv.waitFrom(t, waitLong, from, func(c call) bool { return c.method == "code_changed" })
	if c.arg == "" || rt.Code() != c.arg {
		t.Fatalf("code_changed(%s), Code() %s", c.arg, rt.Code())
	}
	if kind := send(rt.Code()); kind != "" {
		t.Fatalf("the new code: %q", kind)
	}
	if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "done" {
		t.Fatalf("receiver ended %s(%s)", end.method, end.arg)
	}
	if err := rt.NewCode(); err == nil {
		t.Error("NewCode after the transfer ended: no error")
	}
}

// One budget for the Node, across receives and a restart of the app:
// three rounds of 8 immediate wrong codes, each on a new Receive (as an
// app makes one per transfer) and followed by an honest transfer with
// the shown code, the third on a new Node over the same DataDir (the
// system restarting the app, not the person: StartedByPerson false).
// Before, every Receive came with a budget of its own: 6 checked per
// round, 18 in all. Now the three rounds share one: 6, then about one
// a round (the back-off), and never more than 12.
func TestOneBudgetAcrossReceives(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the budget's back-off (about 2 s): skipped in short mode")
	}
	t.Parallel()
	dataDir := t.TempDir()
	open := func() (*Node, *recorder) {
		rec := newRecorder()
		cfg := NewConfig()
		cfg.Name, cfg.DataDir = "A", dataDir
		n, err := NewNode(cfg, rec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		return n, rec
	}
	phoneA, recvEv := open()
	phoneB, sendEv := newTestNode(t, "B")
	checked, held := 0, 0
	for round := range 3 {
		if round == 2 {
			phoneA.Close()
			phoneA, recvEv = open()
		}
		opts := loopbackReceive(t)
		opts.AutoAccept = true
		rt, err := phoneA.Receive(opts)
		if err != nil {
			t.Fatal(err)
		}
		send := func(code string) string {
			st := sendHi(t, phoneB, rt.Port(), code)
			if end := sendEv.terminal(t, st.ID(), waitLong); end.method == "error" {
				return end.fail.Kind
			}
			return ""
		}
		for i := range 8 {
			right, _ := strconv.Atoi(rt.Code())
			switch kind := send(fmt.Sprintf("%06d", (right+1+i)%1_000_000)); kind {
			case KindCodesHeld:
				held++
			case KindWrongCode, KindCodeRetired:
				checked++
			default:
				t.Fatalf("round %d, guess %d: %q", round+1, i+1, kind)
			}
		}
		// The honest sender is told to wait, and waits out the hold the
		// receiver announced, as a person would.
		for try := 0; ; try++ {
			kind := send(rt.Code())
			if kind == "" {
				break
			}
			if kind != KindCodesHeld || try == 5 {
				t.Fatalf("round %d: the honest sender: %q", round+1, kind)
			}
			recvEv.wait(t, waitLong, func(c call) bool { return c.method == "codes_held" && c.id == rt.ID() })
			<-time.After(time.Until(recvEv.lastHold(rt.ID())))
		}
		if end := recvEv.terminal(t, rt.ID(), waitLong); end.method != "done" {
			t.Fatalf("round %d: receiver ended %s(%s)", round+1, end.method, end.arg)
		}
	}
	t.Logf("3 rounds of 8 immediate wrong codes, each followed by an honest transfer (the 3rd after a restart): %d checked, %d held; one budget allows %d, a budget per Receive checked 18",
		checked, held, 12)
	if checked > 12 || checked < 6 {
		t.Fatalf("%d wrong codes checked across three receives and a restart, want at most one budget's 12", checked)
	}
}

// lastHold is the latest until of the codes_held calls delivered for id.
func (r *recorder) lastHold(id int64) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var until time.Time
	for _, c := range r.calls {
		if c.method == "codes_held" && c.id == id && c.until.After(until) {
			until = c.until
		}
	}
	return until
}
