package tests

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// killRate shapes the link in the kill tests: slow enough that a kill
// decided on a partial file's size lands before the transfer ends, even
// on a loaded machine, fast enough to keep the test short.
const killRate = "400mbit"

// killPoints is how many times each kill test kills a process.
const killPoints = 10

// TestKillReceiverResumes kills the receiver with SIGKILL at random
// points of a large transfer, restarts it, and sends again: every send
// resumes from what the receiver had written, and the file that finally
// takes its name has the source's BLAKE3.
func TestKillReceiverResumes(t *testing.T) { killAndResume(t, "receiver") }

// TestKillSenderResumes does the same with the sender killed.
func TestKillSenderResumes(t *testing.T) { killAndResume(t, "sender") }

// killRun is one interrupted send, for the report.
type killRun struct {
	at      int64 // the partial file's size when the kill was decided
	reached int64 // how far the surviving end says the bytes got
}

func killAndResume(t *testing.T, victim string) {
	pair := netns.NewPair(t)
	if err := pair.Limit(killRate); err != nil {
		t.Fatal(err)
	}
	size := faultSize()
	src := randomFile(t, t.TempDir(), "big.bin", size, 1)
	want := blake3File(t, src)
	dest := t.TempDir()
	recvHome, sendHome := t.TempDir(), t.TempDir()

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	points := make([]int64, killPoints)
	for i := range points {
		// Between 2% and 80% of the file: past the start, and far enough
		// from the end that the transfer is still running at the kill.
		points[i] = size/50 + rng.Int64N(size*78/100)
	}
	slices.Sort(points)
	t.Logf("kill points (seed %d): %v", seed, points)

	addr := pair.AddrA.String() + ":7101"
	inA := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.A, name, args...) }
	inB := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.B, name, args...) }
	watch := watchPartials(t, dest)
	var runs []killRun
	var froms []int64 // each send's resume offset
	var crossed int64 // payload bytes that crossed the link, all sends together
	began := time.Now()
	for run := 0; ; run++ {
		recv := proc.Start(t, asDevice(inA, recvHome, nil, proc.Ferry(t), "receive", "--dir", dest,
			"--code", "424242", "--yes", "--json", "--no-mdns", "--listen", addr), true)
		recv.Until("listening", 20*time.Second)
		send := proc.Start(t, asDevice(inB, sendHome, nil, proc.Ferry(t), "send", "--to", addr,
			"--code", "424242", "--json", src), true)
		from := size - evInt(t, send.Until("accepted", 30*time.Second), "total_bytes")
		froms = append(froms, from)
		if run > 0 {
			prev := &runs[run-1]
			if from < prev.at {
				t.Errorf("send %d resumed from %d, but the receiver had written %d bytes before the kill", run+1, from, prev.at)
			}
		}
		if run == len(points) {
			so, ro := nextOutcome(t, send, 5*time.Minute), nextOutcome(t, recv, time.Minute)
			if !so.ok() || !ro.ok() {
				t.Fatalf("last send did not complete: sender %v, receiver %v", so.ev, ro.ev)
			}
			if got := evInt(t, so.ev, "resumed_bytes"); got != from {
				t.Errorf("last send: resumed_bytes %d, accepted said %d", got, from)
			}
			crossed += evInt(t, so.ev, "bytes")
			if c := send.Exit(20 * time.Second); c != 0 {
				t.Errorf("last send exited %d", c)
			}
			if c := recv.Exit(20 * time.Second); c != 0 {
				t.Errorf("last receive exited %d", c)
			}
			break
		}

		at, ok := watch.waitSize(points[run], 5*time.Minute)
		if !ok {
			t.Fatalf("send %d completed before the kill at %d bytes: the link is too fast for this machine", run+1, points[run])
		}
		killed, survivor, survivorName := recv, send, "sender"
		if victim == "sender" {
			killed, survivor, survivorName = send, recv, "receiver"
		}
		killed.Signal(syscall.SIGKILL)
		killed.Exit(20 * time.Second)
		o := nextOutcome(t, survivor, time.Minute)
		if o.ok() {
			t.Fatalf("the %s finished a transfer whose peer was killed", survivorName)
		}
		exitsAs(t, survivor, o, fmt.Sprintf("send %d: the surviving %s", run+1, survivorName), "connection_lost")
		r := killRun{at: at, reached: from}
		if p := o.lastProgress; p != nil {
			// The sender's progress counts from its resume offset; the
			// receiver's total leaves the resumed bytes out too.
			r.reached = size - evInt(t, p, "total") + evInt(t, p, "done")
			crossed += evInt(t, p, "done")
		}
		runs = append(runs, r)
	}
	took := time.Since(began)

	got := filepath.Join(dest, "big.bin")
	if h := blake3File(t, got); h != want {
		t.Fatalf("BLAKE3 of the received file %s, want %s", h, want)
	}
	if names := finalNames(t, dest); len(names) != 1 {
		t.Errorf("destination holds %v, want only big.bin", names)
	}
	if p := partials(t, dest); len(p) != 0 {
		t.Errorf("partial files left after the transfer completed: %v", p)
	}

	// The report: bytes sent again after each kill are those the
	// survivor counted as sent (or received) that the next send did not
	// resume from. What was in flight when the receiver died (socket
	// buffers at both ends, one write batch) is lost and sent again: a
	// few MiB. A send that started over would resend everything, far
	// over the 16 MiB allowed per kill.
	var resentTotal int64
	for i, r := range runs {
		next := froms[i+1]
		resent := max(r.reached-next, 0)
		resentTotal += resent
		t.Logf("kill %2d (%s): partial %s when killed, %s reached, resumed from %s: %s sent again",
			i+1, victim, mib(r.at), mib(r.reached), mib(next), mib(resent))
		if limit := int64(16 << 20); resent > limit {
			t.Errorf("kill %d: %s sent again, over %s", i+1, mib(resent), mib(limit))
		}
	}
	t.Logf("%s file, %d kills of the %s, %s crossed the link in all (%s sent again in all, %.1f%% of the file), %v",
		mib(size), len(runs), victim, mib(crossed), mib(resentTotal), 100*float64(resentTotal)/float64(size), took.Round(time.Millisecond))
	if crossed-size > int64(len(runs))*(16<<20) {
		t.Errorf("%s crossed the link for a %s file", mib(crossed), mib(size))
	}
}
