package tests

// Helpers shared by the fault and hostile-peer tests (faults_*_test.go,
// hostile_*_test.go): sizes, files and their BLAKE3, a device whose key
// survives restarts, reading a process's events to its end, and waiting
// for a partial file to grow without polling (inotify).

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lukechampine.com/blake3"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

const partialFolder = testkit.PartialFolder

// fullFaults reports whether FERRY_FAULTS_FULL=1 asks for the full
// sizes (512 MiB files). The default sizes keep `make test` cheap; the
// behaviour checked is the same.
func fullFaults() bool { return os.Getenv("FERRY_FAULTS_FULL") == "1" }

// faultSize is the size of the big file the kill and cut tests send.
func faultSize() int64 {
	if fullFaults() {
		return 512 << 20
	}
	return 64 << 20
}

// randomFile writes size bytes of seeded pseudo-random data (so a resume
// that joined the wrong bytes cannot go unnoticed) and returns its path.
func randomFile(t *testing.T, dir, name string, size int64, seed uint64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), 42})
	if _, err := io.CopyN(f, r, size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// blake3File returns the hex BLAKE3-256 of a file's content.
func blake3File(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := blake3.New(32, nil)
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// asDevice returns a command that runs ferry as a device whose home (and
// so whose key) is home: proc gives every process a fresh home, but a
// partial file resumes only for the same sender's key, so a sender that
// is restarted must keep its own. env adds variables (FERRY_DEBUG_RUNTIME).
// wrap is exec.Command or a Pair's Command.
func asDevice(wrap func(name string, args ...string) *exec.Cmd, home string, env []string, args ...string) *exec.Cmd {
	pre := append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, env...)
	return wrap("env", append(pre, args...)...)
}

// outcome reads p's events up to the end of the current transfer: the
// next done or error event. Every progress event on the way is kept, so
// the last one says where the transfer stood.
type outcome struct {
	ev           map[string]any   // the done or error event
	events       []map[string]any // everything on the way, ev included
	lastProgress map[string]any   // nil when there was none
}

func (o outcome) ok() bool { return o.ev["event"] == "done" }

func (o outcome) kind() string { s, _ := o.ev["kind"].(string); return s }

func (o outcome) message() string { s, _ := o.ev["message"].(string); return s }

// first returns the first event named name on the way, or nil.
func (o outcome) first(name string) map[string]any {
	for _, ev := range o.events {
		if ev["event"] == name {
			return ev
		}
	}
	return nil
}

func nextOutcome(t *testing.T, p *proc.Proc, timeout time.Duration) outcome {
	t.Helper()
	o, err := readOutcome(p, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// readOutcome is nextOutcome for a goroutine other than the test's: it
// returns an error instead of failing the test.
func readOutcome(p *proc.Proc, timeout time.Duration) (outcome, error) {
	var o outcome
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev, open := <-p.Events:
			if !open {
				return o, fmt.Errorf("ferry exited before a done or error event; stderr:\n%s", p.StderrText())
			}
			o.events = append(o.events, ev)
			switch ev["event"] {
			case "progress":
				o.lastProgress = ev
			case "done", "error":
				o.ev = ev
				return o, nil
			}
		case <-deadline.C:
			return o, fmt.Errorf("no done or error event within %v; stderr:\n%s", timeout, p.StderrText())
		}
	}
}

// evInt reads a JSON number field as an int64.
func evInt(t *testing.T, ev map[string]any, field string) int64 {
	t.Helper()
	f, ok := ev[field].(float64)
	if !ok {
		t.Fatalf("event %v has no number %q", ev, field)
	}
	return int64(f)
}

// finalNames lists what the destination holds under final names (its
// top level, the partial folder left out).
func finalNames(t *testing.T, dest string) []string {
	t.Helper()
	return testkit.FinalNames(t, dest)
}

// partials returns the partial files in dest and their sizes.
func partials(t *testing.T, dest string) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	entries, err := os.ReadDir(filepath.Join(dest, partialFolder))
	if errors.Is(err, os.ErrNotExist) {
		return m
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue // moved into place since the listing, by a receiver still running
		}
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = fi.Size()
	}
	return m
}

// partialWatch waits for a receiver's partial file to grow, woken by
// inotify rather than a timer: it watches the destination until the
// partial folder appears, then the folder itself.
type partialWatch struct {
	t       *testing.T
	dest    string
	f       *os.File
	watched bool // the partial folder has a watch
}

func watchPartials(t *testing.T, dest string) *partialWatch {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	w := &partialWatch{t: t, dest: dest, f: os.NewFile(uintptr(fd), "inotify")}
	t.Cleanup(func() { w.f.Close() })
	// IN_MOVED_TO: a file taking its final name, which ends the wait.
	if _, err := syscall.InotifyAddWatch(fd, dest, syscall.IN_CREATE|syscall.IN_MOVED_TO); err != nil {
		t.Fatalf("watching %s: %v", dest, err)
	}
	return w
}

// largest returns the size of the largest partial file, adding the
// folder's watch once it exists.
func (w *partialWatch) largest() int64 {
	dir := filepath.Join(w.dest, partialFolder)
	if !w.watched {
		_, err := syscall.InotifyAddWatch(int(w.f.Fd()), dir, syscall.IN_MODIFY|syscall.IN_CREATE)
		if err == nil {
			w.watched = true
		} else if !errors.Is(err, syscall.ENOENT) {
			w.t.Fatalf("watching %s: %v", dir, err)
		}
	}
	var max int64
	for _, n := range partials(w.t, w.dest) {
		max = maxInt(max, n)
	}
	return max
}

// waitSize waits until a partial file holds at least n bytes and returns
// the largest partial's size then. It returns early, with ok false, when
// something takes a final name in the destination: the transfer ended
// before the partial grew that far.
func (w *partialWatch) waitSize(n int64, timeout time.Duration) (size int64, ok bool) {
	w.t.Helper()
	w.f.SetReadDeadline(time.Now().Add(timeout))
	buf := make([]byte, 64<<10)
	for {
		if got := w.largest(); got >= n {
			return got, true
		}
		if len(finalNames(w.t, w.dest)) > 0 {
			return w.largest(), false
		}
		if _, err := w.f.Read(buf); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				w.t.Fatalf("no partial file of %d bytes within %v (largest %d)", n, timeout, w.largest())
			}
			w.t.Fatalf("reading inotify events: %v", err)
		}
	}
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// vmHWM returns a process's peak resident set size in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	return procStatusKB(t, pid, "VmHWM") << 10
}

func procStatusKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("parsing %q: %v", line, err)
			}
			return v
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// openFDs counts a process's open file descriptors.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
