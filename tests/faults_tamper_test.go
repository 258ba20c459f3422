package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestTamperedByteIsRefused puts a proxy between a real sender and a
// real receiver that flips one bit in the middle of one encrypted record,
// as an active attacker on the LAN could. The receiver must refuse that
// record (it fails authentication), tell the sender, and put nothing
// under a final name; what it kept is only bytes that did authenticate,
// so a send that bypasses the proxy resumes from it and completes.
func TestTamperedByteIsRefused(t *testing.T) {
	const size = 32 << 20
	src := randomFile(t, t.TempDir(), "ledger.bin", size, 4)
	dest := t.TempDir()
	sendHome := t.TempDir()
	receive := func() (*proc.Proc, string) {
		p := proc.Start(t, exec.Command(proc.Ferry(t), "receive", "--dir", dest, "--code", "717171",
			"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0"), true)
		ev := p.Until("listening", 20*time.Second)
		return p, fmt.Sprintf("127.0.0.1:%d", evInt(t, ev, "port"))
	}
	send := func(addr string) *proc.Proc {
		return proc.Start(t, asDevice(exec.Command, sendHome, nil, proc.Ferry(t), "send", "--to", addr,
			"--code", "717171", "--json", src), true)
	}

	recv, addr := receive()
	flip := &testkit.FlipRecord{At: 8 << 20}
	sender := send(testkit.StartProxy(t, addr, flip).Addr)
	so, ro := nextOutcome(t, sender, time.Minute), nextOutcome(t, recv, time.Minute)
	record, offset, flipped := flip.Flipped()
	if !flipped {
		t.Fatal("the proxy never flipped a byte")
	}
	t.Logf("flipped a bit in record %d, %s into the stream", record, mib(offset))
	t.Logf("receiver: %s: %s", ro.kind(), ro.message())
	t.Logf("sender: %s: %s", so.kind(), so.message())
	if ro.ok() || so.ok() {
		t.Fatalf("a tampered transfer completed: sender %v, receiver %v", so.ev, ro.ev)
	}
	if !strings.Contains(ro.message(), "record failed authentication") {
		t.Errorf("the receiver's error does not say the record failed authentication: %s", ro.message())
	}
	for name, o := range map[string]outcome{"receiver": ro, "sender": so} {
		if o.kind() == "verify" {
			// A hash mismatch would mean the tampered bytes were written.
			t.Errorf("the %s reported a hash mismatch: the damaged record reached the file", name)
		}
	}
	t.Run("the sender is told why", func(t *testing.T) {
		// The receiver sends an abort, then reads what the sender still
		// sends until it closes (for a short grace), so that no reset can
		// overtake the abort.
		if !strings.Contains(so.message(), "record failed authentication") {
			t.Errorf("the sender was not told why the receiver ended the transfer: %s", so.message())
		}
	})
	sender.Exit(20 * time.Second)
	recv.Exit(20 * time.Second)
	if names := finalNames(t, dest); len(names) != 0 {
		t.Fatalf("a tampered transfer left %v under final names", names)
	}
	// Whatever was kept is a prefix of the source: only authenticated
	// bytes were written.
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var kept int64
	for name := range partials(t, dest) {
		b, err := os.ReadFile(filepath.Join(dest, partialFolder, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(want, b) {
			t.Fatalf("the partial file (%d bytes) is not a prefix of the source", len(b))
		}
		kept = int64(len(b))
	}
	if kept >= offset {
		t.Errorf("the partial file holds %d bytes, past the tampered record at %d", kept, offset)
	}

	recv, addr = receive()
	sender = send(addr)
	so, ro = nextOutcome(t, sender, time.Minute), nextOutcome(t, recv, time.Minute)
	if !so.ok() || !ro.ok() {
		t.Fatalf("send without the proxy: sender %v, receiver %v", so.ev, ro.ev)
	}
	if got := evInt(t, so.ev, "resumed_bytes"); got != kept {
		t.Errorf("resumed %d bytes, the partial file held %d", got, kept)
	}
	if blake3File(t, filepath.Join(dest, "ledger.bin")) != blake3File(t, src) {
		t.Fatal("the received file differs from the source")
	}
	t.Logf("resumed from %s without the proxy; the file's BLAKE3 matches", mib(kept))
	sender.Exit(20 * time.Second)
	recv.Exit(20 * time.Second)
}
