package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestTwoSendersOneReceiver sends from two processes at once to one
// --keep receiver: first a second sender that arrives in the middle of a
// transfer, then two that start together. Each sender either lands its
// file intact or is told that the receiver is busy (and then sends again
// once it is free); the receiver's transfers never interleave.
func TestTwoSendersOneReceiver(t *testing.T) {
	pair := netns.NewPair(t)
	// Slow enough that the first transfer is still running when the
	// second sender arrives.
	if err := pair.Limit("200mbit"); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	srcDir := t.TempDir()
	addr := pair.AddrA.String() + ":7401"
	inA := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.A, name, args...) }
	inB := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.B, name, args...) }
	recv := proc.Start(t, inA(proc.Ferry(t), "receive", "--keep", "--dir", dest, "--code", "818181",
		"--yes", "--json", "--no-mdns", "--listen", addr), true)
	recv.Until("listening", 20*time.Second)

	// The receiver's transfers, in order, each from its connected event
	// to its done or error: a second connected inside one would be
	// interleaving.
	var transfers []outcome
	receiverOutcome := func() outcome {
		t.Helper()
		o := nextOutcome(t, recv, 2*time.Minute)
		if n := countEvents(o, "connected"); n != 1 {
			t.Errorf("one transfer of the receiver saw %d connected events: %v", n, o.events)
		}
		transfers = append(transfers, o)
		return o
	}
	send := func(name string) *proc.Proc {
		return proc.Start(t, inB(proc.Ferry(t), "send", "--to", addr, "--code", "818181", "--json",
			filepath.Join(srcDir, name)), true)
	}
	// finish waits for a sender and says whether it landed (true) or was
	// told the receiver is busy (false); anything else fails the test.
	finish := func(p *proc.Proc, name string) bool {
		t.Helper()
		o := nextOutcome(t, p, 2*time.Minute)
		if !o.ok() && strings.Contains(o.message(), "busy") {
			exitsAs(t, p, o, name, "busy")
			t.Logf("%s: told busy: %s", name, o.message())
			return false
		}
		code := p.Exit(20 * time.Second)
		if !o.ok() || code != 0 {
			t.Fatalf("%s: exit %d, %v", name, code, o.ev)
		}
		return true
	}

	files := map[string]int64{"first.bin": faultSize(), "second.bin": 1 << 20, "left.bin": 8 << 20, "right.bin": 8 << 20}
	sums := map[string]string{}
	seed := uint64(10)
	for name, size := range files {
		seed++
		sums[name] = blake3File(t, randomFile(t, srcDir, name, size, seed))
	}

	// Round 1: the second sender arrives mid-transfer.
	first := send("first.bin")
	first.Until("accepted", 30*time.Second)
	if _, ok := watchPartials(t, dest).waitSize(4<<20, time.Minute); !ok {
		t.Fatal("the first transfer completed before the second sender started")
	}
	second := send("second.bin")
	secondLanded := finish(second, "second.bin")
	if !finish(first, "first.bin") {
		t.Fatal("the first sender, alone when it started, was told busy")
	}
	receiverOutcome()
	if secondLanded {
		receiverOutcome() // it waited, then went through
	} else {
		retry := send("second.bin")
		if !finish(retry, "second.bin") {
			t.Fatal("second.bin was told busy again, with the receiver idle")
		}
		receiverOutcome()
	}

	// Round 2: two senders start together.
	left, right := send("left.bin"), send("right.bin")
	landed := map[string]bool{"left.bin": finish(left, "left.bin"), "right.bin": finish(right, "right.bin")}
	t.Logf("started together: landed %v", landed)
	if !landed["left.bin"] && !landed["right.bin"] {
		t.Error("both senders were told busy: one of them must have got through")
	}
	for name, ok := range landed {
		if ok {
			receiverOutcome()
			continue
		}
		retry := send(name)
		if !finish(retry, name) {
			t.Fatalf("%s was told busy again, with the receiver idle", name)
		}
		receiverOutcome()
	}

	for _, o := range transfers {
		if !o.ok() {
			t.Errorf("a transfer failed on the receiver: %v", o.ev)
		}
	}
	for name, sum := range sums {
		if got := blake3File(t, filepath.Join(dest, name)); got != sum {
			t.Errorf("%s arrived with BLAKE3 %s, want %s", name, got, sum)
		}
	}
	if names := finalNames(t, dest); len(names) != len(files) {
		t.Errorf("destination holds %v, want exactly the %d files sent", names, len(files))
	}
	t.Logf("%d transfers, none interleaved, every file intact", len(transfers))
}

func countEvents(o outcome, name string) int {
	n := 0
	for _, ev := range o.events {
		if ev["event"] == name {
			n++
		}
	}
	return n
}
