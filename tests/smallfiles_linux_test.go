package tests

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// fsCalls are the system calls counted as a receiver's work on the file
// system per file: every call that names or holds a file or folder,
// except the reads and writes of its bytes, which both ends make alike
// (and which, on the receiver, also carry the socket and the events).
var fsCalls = map[string]bool{
	"open": true, "openat": true, "openat2": true, "creat": true, "close": true,
	"stat": true, "lstat": true, "fstat": true, "newfstatat": true, "statx": true,
	"readlink": true, "readlinkat": true, "link": true, "linkat": true,
	"unlink": true, "unlinkat": true, "rename": true, "renameat": true, "renameat2": true,
	"utimensat": true, "utimes": true, "futimesat": true,
	"chmod": true, "fchmod": true, "fchmodat": true, "fchmodat2": true,
	"chown": true, "fchown": true, "fchownat": true, "lchown": true,
	"fcntl": true, "mkdir": true, "mkdirat": true, "ftruncate": true, "truncate": true,
	"lseek": true, "getdents64": true, "fsync": true, "fdatasync": true,
	"flock": true, "fstatfs": true, "statfs": true, "access": true, "faccessat": true, "faccessat2": true,
}

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
	if testing.Short() {
		t.Skip("a real transfer of 1,000 files under strace")
	}
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
	so, ro := nextOutcome(t, sender, 2*time.Minute), nextOutcome(t, recv, 2*time.Minute)
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

// countFSCalls reads a strace -c summary and returns the calls of
// fsCalls in it, in all and by name.
func countFSCalls(t *testing.T, path string) (int, map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, by := 0, map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// % time, seconds, usecs/call, calls, [errors,] syscall
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || !fsCalls[fields[len(fields)-1]] {
			continue
		}
		n, err := strconv.Atoi(fields[3])
		if err != nil {
			continue
		}
		total += n
		by[fields[len(fields)-1]] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if total == 0 {
		t.Fatalf("%s counts no file-system call: strace's summary format changed?", path)
	}
	return total, by
}
