package tests

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// peerTimeout is core/transfer's default silence limit, which the CLI
// uses: a peer quiet for longer ends the transfer with a timeout.
const peerTimeout = 30 * time.Second

// TestLinkCutTimesOutAndResumes takes the link down in the middle of a
// transfer. Neither end hears anything more, so both must give up on
// their own, with a timeout, within a bounded time; the receiver keeps
// its partial file, and once the link is back a new send resumes from it.
func TestLinkCutTimesOutAndResumes(t *testing.T) {
	t.Parallel() // mostly waiting for the timeout: let other waiting tests share it
	pair := netns.NewPair(t)
	// Slow enough that the cut lands mid-transfer.
	if err := pair.Limit("200mbit"); err != nil {
		t.Fatal(err)
	}
	size := faultSize()
	src := randomFile(t, t.TempDir(), "big.bin", size, 2)
	dest := t.TempDir()
	sendHome := t.TempDir()
	addr := pair.AddrA.String() + ":7201"
	inA := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.A, name, args...) }
	inB := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.B, name, args...) }
	receive := func() *proc.Proc {
		p := proc.Start(t, inA(proc.Ferry(t), "receive", "--dir", dest, "--code", "515151",
			"--yes", "--json", "--no-mdns", "--listen", addr), true)
		p.Until("listening", 20*time.Second)
		return p
	}
	sendCmd := func() *proc.Proc {
		return proc.Start(t, asDevice(inB, sendHome, nil, proc.Ferry(t), "send", "--to", addr,
			"--code", "515151", "--json", src), true)
	}
	link := func(state string) {
		t.Helper()
		if out, err := exec.Command("ip", "-n", pair.B, "link", "set", pair.VethB, state).CombinedOutput(); err != nil {
			t.Fatalf("ip link set %s %s: %v: %s", pair.VethB, state, err, out)
		}
	}

	recv, send := receive(), sendCmd()
	send.Until("accepted", 30*time.Second)
	at, ok := watchPartials(t, dest).waitSize(size/8, 2*time.Minute)
	if !ok {
		t.Fatal("the transfer completed before the cut")
	}
	link("down")
	cut := time.Now()
	t.Logf("link down with %s of %s in the partial file", mib(at), mib(size))

	// Both ends wait on their own clocks, at once.
	type end struct {
		name string
		o    outcome
		err  error
		took time.Duration
	}
	ends := make(chan end, 2)
	bound := 2 * peerTimeout
	for name, p := range map[string]*proc.Proc{"sender": send, "receiver": recv} {
		go func() {
			o, err := readOutcome(p, bound+30*time.Second)
			ends <- end{name, o, err, time.Since(cut)}
		}()
	}
	outcomes := map[string]outcome{}
	for range 2 {
		e := <-ends
		outcomes[e.name] = e.o
		if e.err != nil {
			t.Errorf("%s: %v", e.name, e.err)
			continue
		}
		t.Logf("%s: %s after %v: %s", e.name, e.o.kind(), e.took.Round(time.Millisecond), e.o.message())
		if e.o.ok() {
			t.Errorf("the %s finished a transfer across a cut link", e.name)
			continue
		}
		if e.o.kind() != "timeout" {
			t.Errorf("the %s reported %q (%s), want timeout", e.name, e.o.kind(), e.o.message())
		}
		if e.took > bound {
			t.Errorf("the %s took %v to give up, over %v", e.name, e.took, bound)
		}
	}
	exitsAs(t, send, outcomes["sender"], "the sender", "timeout")
	exitsAs(t, recv, outcomes["receiver"], "the receiver", "timeout")
	if names := finalNames(t, dest); len(names) != 0 {
		t.Errorf("a cut transfer left %v under final names", names)
	}
	kept := int64(0)
	for _, n := range partials(t, dest) {
		kept = max(kept, n)
	}
	if kept < at {
		t.Fatalf("the partial file holds %d bytes, %d before the cut", kept, at)
	}

	link("up")
	recv, send = receive(), sendCmd()
	so, ro := nextOutcome(t, send, 3*time.Minute), nextOutcome(t, recv, time.Minute)
	if !so.ok() || !ro.ok() {
		t.Fatalf("send after the link came back: sender %v, receiver %v", so.ev, ro.ev)
	}
	if got := evInt(t, so.ev, "resumed_bytes"); got != kept {
		t.Errorf("resumed %d bytes, the partial file held %d", got, kept)
	}
	if blake3File(t, filepath.Join(dest, "big.bin")) != blake3File(t, src) {
		t.Fatal("the resumed file differs from the source")
	}
	t.Logf("resumed from %s after the link came back; the file's BLAKE3 matches", mib(kept))
	send.Exit(20 * time.Second)
	recv.Exit(20 * time.Second)
}
