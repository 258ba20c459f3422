package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// smallFilesSlack is how many file-system calls per file a receiver may
// make beyond tar's (issue 34).
const smallFilesSlack = 3

// TestSmallFilesSyscalls counts, with strace, the file-system calls a
// real receiver (bin/ferry receive) makes for a folder of 1,000 files of
// 4 KiB, and those of tar extracting the same folder, and fails when
// Ferry makes more than tar's plus smallFilesSlack per file. Every file
// is still hashed, checked and placed under its name without following a
// link or replacing anything; the received tree is compared with the
// sent one.
func TestSmallFilesSyscalls(t *testing.T) {
	strace := testkit.NeedTool(t, "strace", "counting the receiver's file-system calls")
	tar := testkit.NeedTool(t, "tar", "the baseline of file-system calls per file")
	const folders, perFolder = 10, 100
	const files = folders * perFolder
	work := t.TempDir()
	src := filepath.Join(work, "src", "tree")
	for d := range folders {
		if err := os.MkdirAll(filepath.Join(src, fmt.Sprintf("d%d", d)), 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range perFolder {
			randomFile(t, filepath.Join(src, fmt.Sprintf("d%d", d)), fmt.Sprintf("f%03d.bin", f), 4096, uint64(d*perFolder+f))
		}
	}

	archive := filepath.Join(work, "tree.tar")
	if out, err := exec.Command(tar, "-C", filepath.Dir(src), "-cf", archive, "tree").CombinedOutput(); err != nil {
		t.Fatalf("tar -c: %v: %s", err, out)
	}
	tarDst, tarCount := filepath.Join(work, "tar-dst"), filepath.Join(work, "tar.strace")
	os.Mkdir(tarDst, 0o755)
	if out, err := exec.Command(strace, "-f", "-c", "-o", tarCount, tar, "-C", tarDst, "-xf", archive).CombinedOutput(); err != nil {
		t.Fatalf("tar -x under strace: %v: %s", err, out)
	}

	dst, count := filepath.Join(work, "ferry-dst"), filepath.Join(work, "ferry.strace")
	os.Mkdir(dst, 0o755)
	recv := proc.Start(t, exec.Command(strace, "-f", "-c", "-o", count, proc.Ferry(t), "receive", "--dir", dst, "--code", "424242",
		"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0"), true)
	ev := recv.Until("listening", 30*time.Second)
	addr := fmt.Sprintf("127.0.0.1:%d", evInt(t, ev, "port"))
	sender := proc.Start(t, asDevice(exec.Command, t.TempDir(), nil, proc.Ferry(t), "send", "--to", addr,
		"--code", "424242", "--json", src), true)
	so, ro := bothOutcomes(t, sender, recv, 2*time.Minute)
	if !so.ok() || !ro.ok() {
		t.Fatalf("the transfer failed: sender %v, receiver %v", so.ev, ro.ev)
	}
	sender.Exit(20 * time.Second)
	if code := recv.Exit(30 * time.Second); code != 0 {
		t.Fatalf("the receiver under strace exited %d: %s", code, recv.StderrText())
	}
	for d := range folders {
		for f := range perFolder {
			rel := filepath.Join(fmt.Sprintf("d%d", d), fmt.Sprintf("f%03d.bin", f))
			if got, want := blake3File(t, filepath.Join(dst, "tree", rel)), blake3File(t, filepath.Join(src, rel)); got != want {
				t.Fatalf("%s arrived different", rel)
			}
		}
	}

	tarCalls, tarBy := countFSCalls(t, tarCount)
	ferryCalls, ferryBy := countFSCalls(t, count)
	tarPer, ferryPer := float64(tarCalls)/files, float64(ferryCalls)/files
	t.Logf("file-system calls per file: tar %.2f %v", tarPer, tarBy)
	t.Logf("file-system calls per file: ferry receive %.2f %v", ferryPer, ferryBy)
	if ferryPer > tarPer+smallFilesSlack {
		t.Errorf("the receiver made %.2f file-system calls per file, tar %.2f: more than tar's plus %d", ferryPer, tarPer, smallFilesSlack)
	}
}

// countFSCalls is benches.FSCalls, failing t on an error.
func countFSCalls(t *testing.T, path string) (int, map[string]int) {
	t.Helper()
	total, by, err := benches.FSCalls(path)
	if err != nil {
		t.Fatal(err)
	}
	return total, by
}

// TestKillMidFolder kills the receiver (SIGKILL) while a folder of many
// small files is arriving, with files being placed and others being
// written: every file under a final name is complete, with its source's
// bytes, and every other one is only in the partial folder. Then a send
// again completes the folder, file for file.
func TestKillMidFolder(t *testing.T) {
	const folders, perFolder = 30, 100
	work := t.TempDir()
	src := filepath.Join(work, "src", "tree")
	for d := range folders {
		if err := os.MkdirAll(filepath.Join(src, fmt.Sprintf("d%02d", d)), 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range perFolder {
			randomFile(t, filepath.Join(src, fmt.Sprintf("d%02d", d)), fmt.Sprintf("f%03d.bin", f), int64(1024+f*97), uint64(d*perFolder+f))
		}
	}
	dst := filepath.Join(work, "dst")
	os.Mkdir(dst, 0o755)
	recvHome, sendHome := t.TempDir(), t.TempDir()
	receive := func() (*proc.Proc, string) {
		p := proc.Start(t, asDevice(exec.Command, recvHome, nil, proc.Ferry(t), "receive", "--dir", dst, "--code", "535353",
			"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0"), true)
		ev := p.Until("listening", 30*time.Second)
		return p, fmt.Sprintf("127.0.0.1:%d", evInt(t, ev, "port"))
	}
	send := func(addr string) *proc.Proc {
		return proc.Start(t, asDevice(exec.Command, sendHome, nil, proc.Ferry(t), "send", "--to", addr,
			"--code", "535353", "--json", src), true)
	}

	recv, addr := receive()
	sender := send(addr)
	// Kill once some files are in place and the rest still come.
	placed := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(dst, "tree"), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n
	}
	deadline := time.Now().Add(time.Minute)
	for placed() < folders*perFolder/10 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d files placed after a minute", placed())
		}
		time.Sleep(time.Millisecond)
	}
	// Stopped first, so that the count below is what the kill finds,
	// however fast the machine: a receiver that had placed every file
	// would be no test of a crash mid-folder.
	recv.Signal(syscall.SIGSTOP)
	n := placed()
	recv.Signal(syscall.SIGKILL)
	recv.Exit(30 * time.Second)
	sender.Exit(time.Minute)
	if n >= folders*perFolder {
		t.Fatalf("the receiver had placed all %d files before it was stopped: no crash mid-folder was tried", n)
	}
	t.Logf("killed with %d of %d files placed", n, folders*perFolder)
	checkPlaced(t, src, dst, false)

	recv, addr = receive()
	sender = send(addr)
	so, ro := bothOutcomes(t, sender, recv, 2*time.Minute)
	if !so.ok() || !ro.ok() {
		t.Fatalf("the second send failed: sender %v, receiver %v", so.ev, ro.ev)
	}
	sender.Exit(20 * time.Second)
	recv.Exit(30 * time.Second) // a receiver without --keep ends after one transfer
	checkPlaced(t, src, dst, true)
}

// checkPlaced checks that every regular file under dst but its partial
// folder is a complete copy of its source under src (dst/tree mirrors
// src), named as the source is, and, with all, that every source file
// is there.
func checkPlaced(t *testing.T, src, dst string, all bool) {
	t.Helper()
	seen := 0
	err := filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".ferry-partial" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(filepath.Join(dst, "tree"), p)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("%s is outside the sent folder", p)
			return nil
		}
		if got, want := blake3File(t, p), blake3File(t, filepath.Join(src, rel)); got != want {
			t.Errorf("%s under its final name is not its source's bytes", rel)
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if all {
		n := 0
		filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
		if seen != n {
			t.Errorf("%d files in place, %d sent", seen, n)
		}
	}
}

// bothOutcomes reads the sender's and the receiver's outcomes at once:
// each prints an event per file, and an end whose events nobody reads
// stops at a full pipe, and with it the transfer.
func bothOutcomes(t *testing.T, sender, recv *proc.Proc, timeout time.Duration) (so, ro outcome) {
	t.Helper()
	type res struct {
		o   outcome
		err error
	}
	rc := make(chan res, 1)
	go func() {
		o, err := readOutcome(recv, timeout)
		rc <- res{o, err}
	}()
	so, serr := readOutcome(sender, timeout)
	r := <-rc
	if serr != nil {
		t.Fatalf("sender: %v", serr)
	}
	if r.err != nil {
		t.Fatalf("receiver: %v", r.err)
	}
	return so, r.o
}
