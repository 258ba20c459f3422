package receive

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
)

// The CPU verdict needs each end in its own process: an end measures its
// process's CPU, and two ends in one process would each report both.
// So these tests run the test binary again as a receiver and as a sender
// (cpuChild, started from init before any test), joined by real loopback
// TCP, with real files (in memory where the system has /dev/shm). Both
// children are held to the same two CPUs, so
// that the machine they share is a two-core one wherever the test runs.
const (
	childEnv = "FERRY_VERDICT_CHILD" // "receive" or "send"
	busyEnv  = "FERRY_VERDICT_BUSY"  // busy-loop goroutines in the child
	cpusEnv  = "FERRY_VERDICT_CPUS"  // CPUs to hold the child to, "0,1"
	heldEnv  = "FERRY_VERDICT_HELD"  // set once the child is held to them
	dirEnv   = "FERRY_VERDICT_DIR"   // receive: where to save
	addrEnv  = "FERRY_VERDICT_ADDR"  // send: the receiver's address
	codeEnv  = "FERRY_VERDICT_CODE"  // send: the receiver's code
	srcEnv   = "FERRY_VERDICT_SRC"   // send: the file to send
)

func init() {
	role := os.Getenv(childEnv)
	if role == "" {
		return
	}
	if err := cpuChild(role); err != nil {
		fmt.Fprintf(os.Stderr, "verdict child %s: %v\n", role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childReport is what the sending child prints on stdout.
type childReport struct {
	Verdict     string
	Local       diag.Split
	Wall        time.Duration
	LocalCPU    diag.CPU
	Remote      diag.Split
	RemoteWall  time.Duration
	RemoteCPU   diag.CPU
	SameMachine bool
}

func cpuChild(role string) error {
	if cpus := os.Getenv(cpusEnv); cpus != "" && os.Getenv(heldEnv) == "" {
		return holdAndRestart(cpus)
	}
	if n, _ := strconv.Atoi(os.Getenv(busyEnv)); n > 0 {
		// The goroutines spin until the process exits: a process whose
		// cores something else in it takes. GOMAXPROCS is raised so that
		// they and the transfer all have threads, as a program with more
		// work than cores would.
		runtime.GOMAXPROCS(2 * n)
		for range n {
			go func() {
				x := 0
				for {
					x++
				}
			}()
		}
	}
	ctx := context.Background()
	switch role {
	case "receive":
		id, err := secure.NewIdentity()
		if err != nil {
			return err
		}
		r, err := NewReceiver(ReceiverConfig{Identity: id, Listen: "127.0.0.1:0", Dir: os.Getenv(dirEnv),
			Policy: AcceptAll, Diag: true, Name: "cpu-receiver"})
		if err != nil {
			return err
		}
		defer r.Close()
		fmt.Printf("listening 127.0.0.1:%d %s\n", r.Port(), r.Code())
		_, err = r.Serve(ctx)
		return err
	case "send":
		id, err := secure.NewIdentity()
		if err != nil {
			return err
		}
		sum, err := send.Send(ctx, send.SendConfig{Addrs: []string{os.Getenv(addrEnv)}, Code: os.Getenv(codeEnv), Identity: id,
			Name: "cpu-sender", Diag: true, Items: []event.Item{{Path: os.Getenv(srcEnv)}}})
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(childReport{sum.Verdict, sum.Local, sum.Wall, sum.LocalCPU,
			sum.Remote, sum.RemoteWall, sum.RemoteCPU, sum.SameMachine})
	}
	return fmt.Errorf("unknown role %q", role)
}

// holdAndRestart holds this thread to the CPUs listed and executes the
// test binary again on it: the new program inherits the mask from its
// first thread and sizes its scheduler from it, as a process started on
// a two-core machine would.
func holdAndRestart(cpus string) error {
	var mask [16]uint64
	for f := range strings.SplitSeq(cpus, ",") {
		c, err := strconv.Atoi(f)
		if err != nil || c < 0 || c >= 64*len(mask) {
			return fmt.Errorf("bad CPU %q", f)
		}
		mask[c/64] |= 1 << (c % 64)
	}
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask))); e != 0 {
		return fmt.Errorf("sched_setaffinity: %w", e)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return syscall.Exec(exe, os.Args, append(os.Environ(), heldEnv+"=1"))
}

// twoCPUs lists two CPUs this process may run on, or all of them if it
// may run on fewer.
func twoCPUs(t *testing.T) string {
	var mask [16]uint64
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask))); e != 0 {
		t.Fatalf("sched_getaffinity: %v", e)
	}
	var cpus []string
	for c := 0; c < 64*len(mask) && len(cpus) < 2; c++ {
		if mask[c/64]&(1<<(c%64)) != 0 {
			cpus = append(cpus, strconv.Itoa(c))
		}
	}
	return strings.Join(cpus, ",")
}

// memDir is a temporary folder in memory (/dev/shm) where there is one:
// these tests are about the CPU, and on a machine whose disk other work
// keeps busy the receiver's writes would block on it and blur the
// picture. Elsewhere, a folder on disk.
func memDir(t *testing.T) string {
	d, err := os.MkdirTemp("/dev/shm", "ferry-verdict-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// cpuTransfer sends src from a child process to a receiving child on
// loopback, both held to the same CPUs, with busyRecv and busySend
// busy-loop goroutines in each, and returns the sender's report.
// skipShort: make race runs -short, and the race detector would slow the
// children's cipher and hash tenfold, which the verdict, free of timing
// thresholds, survives but the suite's time budget does not.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("two processes moving 64 to 128 MiB: not in -short")
	}
}

func cpuTransfer(t *testing.T, src string, busySend, busyRecv int) childReport {
	t.Helper()
	cpus := twoCPUs(t)
	child := func(role string, busy int, env ...string) *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), append(env, childEnv+"="+role, busyEnv+"="+strconv.Itoa(busy), cpusEnv+"="+cpus)...)
		cmd.Stderr = os.Stderr
		return cmd
	}
	recv := child("receive", busyRecv, dirEnv+"="+memDir(t))
	out, err := recv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := recv.Start(); err != nil {
		t.Fatal(err)
	}
	defer recv.Wait()
	line, err := bufio.NewReader(out).ReadString('\n')
	var addr, code string
	if _, serr := fmt.Sscanf(line, "listening %s %s", &addr, &code); err != nil || serr != nil {
		recv.Process.Kill()
		t.Fatalf("receiving child said %q: %v %v", line, err, serr)
	}
	send := child("send", busySend, addrEnv+"="+addr, codeEnv+"="+code, srcEnv+"="+src)
	report, err := send.Output()
	if err != nil {
		recv.Process.Kill()
		t.Fatalf("sending child: %v", err)
	}
	if err := recv.Wait(); err != nil {
		t.Fatalf("receiving child: %v", err)
	}
	var rep childReport
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatalf("sending child's report %q: %v", report, err)
	}
	t.Logf("CPUs %s", cpus)
	t.Logf("sender   %s; CPU %s", rep.Local.Format(diag.SenderStages(), rep.Wall), rep.LocalCPU.Format(rep.Wall))
	t.Logf("receiver %s; CPU %s", rep.Remote.Format(diag.ReceiverStages(), rep.RemoteWall), rep.RemoteCPU.Format(rep.RemoteWall))
	t.Logf("%s", rep.Verdict)
	return rep
}

// TestVerdictNamesTheBusyEndsCPU takes one end's CPU with busy-loop
// goroutines in its process, eight (four per core of the two it is held to), and checks that
// the verdict names that end's CPU: not the other end, not the network
// that the other end's long socket wait suggests. Each case expects the
// other end's name, so a verdict that ignored the evidence fails one.
func TestVerdictNamesTheBusyEndsCPU(t *testing.T) {
	skipShort(t)
	src := filepath.Join(memDir(t), "payload.bin")
	writeFile(t, src, pattern(64<<20, 3))
	for _, tc := range []struct {
		name               string
		busySend, busyRecv int
		want, notWant      string
	}{
		{"busy receiver", 0, 8, "slowest stage: the receiver's CPU", "sender's CPU"},
		{"busy sender", 8, 0, "slowest stage: the sender's CPU", "receiver's CPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := cpuTransfer(t, src, tc.busySend, tc.busyRecv)
			if !rep.SameMachine {
				t.Errorf("a transfer on loopback was not seen as on one machine")
			}
			if !rep.LocalCPU.Known() || !rep.RemoteCPU.Known() {
				t.Fatalf("an end did not measure its CPU: sender %+v, receiver %+v", rep.LocalCPU, rep.RemoteCPU)
			}
			if !strings.Contains(rep.Verdict, tc.want) || strings.Contains(rep.Verdict, tc.notWant) {
				t.Errorf("verdict %q does not name %q alone", rep.Verdict, tc.want)
			}
		})
	}
}

// TestVerdictNamesTheSharedCPUOnLoopback sends a file over loopback
// between two processes held to the same two CPUs, this machine's whole
// size: every stage on both ends is CPU work (loopback TCP is a memory
// copy, the files are in memory), so the two processes share the cores
// and the verdict must say so, naming the CPU and both ends, not the
// network or one stage.
func TestVerdictNamesTheSharedCPUOnLoopback(t *testing.T) {
	skipShort(t)
	src := filepath.Join(memDir(t), "payload.bin")
	writeFile(t, src, pattern(128<<20, 5))
	rep := cpuTransfer(t, src, 0, 0)
	// Both readings name the CPU and both ends: the cores as the limit
	// when both ends are CPU-bound or together fill them, or the one end
	// the other waits for on the machine they share.
	if !strings.HasPrefix(rep.Verdict, "slowest stage: the ") || !strings.Contains(rep.Verdict, "CPU: both ends share this machine's") {
		t.Errorf("verdict %q does not name the CPU that both ends share", rep.Verdict)
	}
}
