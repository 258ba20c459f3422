package tests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestDiskFillsUp receives into a small tmpfs that the test fills up
// while the bytes flow (the offer fits when it is checked, so only a
// write can find the disk full). Both ends must say "no space", nothing
// may appear under a final name, the partial file must stay, and once
// space is freed a new send resumes from it and completes.
func TestDiskFillsUp(t *testing.T) {
	pair := netns.NewPair(t) // skips, with the reason, where there is no root
	if err := pair.Limit("100mbit"); err != nil {
		t.Fatal(err)
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24m", "ferry-test", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mounting a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	dest := filepath.Join(mnt, "dest")
	if err := os.Mkdir(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 16 << 20
	src := randomFile(t, t.TempDir(), "video.bin", size, 3)
	sendHome := t.TempDir()
	addr := pair.AddrA.String() + ":7301"
	inA := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.A, name, args...) }
	inB := func(name string, args ...string) *exec.Cmd { return pair.Command(pair.B, name, args...) }
	transfer := func() (send, recv *proc.Proc) {
		recv = proc.Start(t, inA(proc.Ferry(t), "receive", "--dir", dest, "--code", "616161",
			"--yes", "--json", "--no-mdns", "--listen", addr), true)
		recv.Until("listening", 20*time.Second)
		send = proc.Start(t, asDevice(inB, sendHome, nil, proc.Ferry(t), "send", "--to", addr,
			"--code", "616161", "--json", src), true)
		return send, recv
	}

	send, recv := transfer()
	send.Until("accepted", 30*time.Second)
	at, ok := watchPartials(t, dest).waitSize(2<<20, time.Minute)
	if !ok {
		t.Fatal("the transfer completed before the disk could be filled")
	}
	filler := filepath.Join(mnt, "filler")
	fillDisk(t, filler)
	t.Logf("disk filled with %s of %s in the partial file", mib(at), mib(size))

	so, ro := nextOutcome(t, send, time.Minute), nextOutcome(t, recv, time.Minute)
	t.Logf("receiver: %s: %s", ro.kind(), ro.message())
	t.Logf("sender: %s: %s", so.kind(), so.message())
	if ro.ok() || so.ok() {
		t.Fatalf("a transfer onto a full disk completed: sender %v, receiver %v", so.ev, ro.ev)
	}
	if ro.kind() != "no_space" || !strings.Contains(ro.message(), "space") {
		t.Errorf("the receiver reported %q (%s), want no_space with a message that says so", ro.kind(), ro.message())
	}
	t.Run("the sender is told no space", func(t *testing.T) {
		switch {
		case so.kind() == "no_space" && strings.Contains(so.message(), "space"):
		default:
			t.Errorf("the sender reported %q (%s), want no_space with a message that says so", so.kind(), so.message())
		}
	})
	t.Run("sender is not told where the receiver saves", func(t *testing.T) {
		// core/transfer promises (TestAbortReasonHidesDestination) that
		// an abort's reason never names the receiver's folders.
		if strings.Contains(so.message(), mnt) {
			t.Errorf("the no-space abort names the receiver's partial file: %s", so.message())
		}
	})
	exitsAs(t, send, so, "the sender", "no_space")
	exitsAs(t, recv, ro, "the receiver", "no_space")
	if names := finalNames(t, dest); len(names) != 0 {
		t.Errorf("a full disk left %v under final names", names)
	}
	var kept int64
	for _, n := range partials(t, dest) {
		kept = max(kept, n)
	}
	if kept < at {
		t.Fatalf("the partial file holds %d bytes, %d before the disk filled", kept, at)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	send, recv = transfer()
	so, ro = nextOutcome(t, send, time.Minute), nextOutcome(t, recv, time.Minute)
	if !so.ok() || !ro.ok() {
		t.Fatalf("send after freeing space: sender %v, receiver %v", so.ev, ro.ev)
	}
	if got := evInt(t, so.ev, "resumed_bytes"); got != kept {
		t.Errorf("resumed %d bytes, the partial file held %d", got, kept)
	}
	if blake3File(t, filepath.Join(dest, "video.bin")) != blake3File(t, src) {
		t.Fatal("the resumed file differs from the source")
	}
	t.Logf("resumed from %s once space was freed; the file's BLAKE3 matches", mib(kept))
	send.Exit(20 * time.Second)
	recv.Exit(20 * time.Second)
}

// fillDisk writes p until its file system has no space left.
func fillDisk(t *testing.T, p string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 1<<20)
	for {
		if _, err := f.Write(block); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatalf("filling the disk: %v", err)
		}
	}
}
