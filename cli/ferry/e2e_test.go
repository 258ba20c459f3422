package main

// End-to-end tests of the real binary over loopback. The binary is built
// once, on first use, so that running only the unit tests builds nothing.
// Nothing leaves loopback: every receiver runs with --no-mdns and
// --listen 127.0.0.1:0, every sender dials --to.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// ferryBin builds bin/ferry once for the whole run.
func ferryBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "ferry-cli-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ferry")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// output collects a stream (stderr, say) and lets a test wait for text in
// it without polling on a timer.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // a token whenever buf grows
	closed  chan struct{}
}

func collect(r io.Reader) *output {
	o := &output{changed: make(chan struct{}, 1), closed: make(chan struct{})}
	go func() {
		defer close(o.closed)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			if n > 0 {
				o.mu.Lock()
				o.buf.Write(b[:n])
				o.mu.Unlock()
				select {
				case o.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return o
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits until the stream holds s.
func (o *output) waitFor(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !strings.Contains(o.String(), s) {
		select {
		case <-o.changed:
		case <-o.closed:
			if !strings.Contains(o.String(), s) {
				t.Fatalf("stream ended without %q:\n%s", s, o)
			}
		case <-deadline.C:
			t.Fatalf("no %q within %v:\n%s", s, timeout, o)
		}
	}
}

// proc is a running ferry: its JSON events (when --json), its stderr.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	events chan map[string]any
	stdout *output
	stderr *output
	done   chan struct{}
	err    error
}

// ferryCmd returns a command for the binary with a config folder of its
// own, so that each process is a device of its own.
func ferryCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(ferryBin(t), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	return cmd
}

// startProc starts cmd; stdout is parsed as JSON events when json is set.
func startProc(t *testing.T, cmd *exec.Cmd, json bool) *proc {
	t.Helper()
	p := &proc{t: t, cmd: cmd, events: make(chan map[string]any, 1024), done: make(chan struct{})}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.stderr = collect(errPipe)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stdoutDone chan struct{}
	if json {
		stdoutDone = make(chan struct{})
		go func() {
			defer close(stdoutDone)
			p.readEvents(out)
		}()
	} else {
		p.stdout = collect(out)
		stdoutDone = p.stdout.closed
	}
	go func() {
		<-stdoutDone
		if p.stderr != nil {
			<-p.stderr.closed
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) readEvents(r io.Reader) {
	defer close(p.events)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			p.t.Errorf("stdout line is not JSON: %q", sc.Text())
			continue
		}
		if _, ok := ev["event"].(string); !ok {
			p.t.Errorf("event without an event field: %q", sc.Text())
		}
		p.events <- ev
	}
}

// until returns the first event named name.
func (p *proc) until(name string, timeout time.Duration) map[string]any {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("ferry ended before a %q event; stderr:\n%s", name, p.stderrText())
			}
			if ev["event"] == name {
				return ev
			}
		case <-deadline.C:
			p.t.Fatalf("no %q event within %v; stderr:\n%s", name, timeout, p.stderrText())
		}
	}
}

// exit waits for the process to end and returns its exit code.
func (p *proc) exit(timeout time.Duration) int {
	p.t.Helper()
	go func() {
		for range p.events {
		}
	}()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		p.t.Fatalf("ferry did not exit within %v; stderr:\n%s", timeout, p.stderrText())
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("waiting for ferry: %v", p.err)
	}
	return 0
}

func (p *proc) stderrText() string {
	if p.stderr == nil {
		return "(not captured)"
	}
	return p.stderr.String()
}

func (p *proc) signal(sig os.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

// startReceiver starts "ferry receive" on loopback with the given extra flags
// and returns it with the port from its listening event.
func startReceiver(t *testing.T, dir, code string, extra ...string) (*proc, string) {
	t.Helper()
	args := append([]string{"receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", code, "--json", "--dir", dir}, extra...)
	r := startProc(t, ferryCmd(t, args...), true)
	ev := r.until("listening", 20*time.Second)
	port, ok := ev["port"].(float64)
	if !ok || port == 0 || ev["code"] != code {
		t.Fatalf("listening event: %v", ev)
	}
	if addrs, ok := ev["addresses"].([]any); !ok || len(addrs) != 1 || addrs[0] != "127.0.0.1" {
		t.Errorf("listening addresses %v, want [127.0.0.1]", ev["addresses"])
	}
	return r, "127.0.0.1:" + strconv.Itoa(int(port))
}

// sendRun runs "ferry send" to the end and returns stdout, stderr and
// the exit code.
func sendRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := ferryCmd(t, append([]string{"send"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "panic") {
		t.Errorf("stack trace on stderr:\n%s", stderr.String())
	}
	return stdout.String(), stderr.String(), code
}

func writeTree(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "photos", "2026"), 0o755)
	os.MkdirAll(filepath.Join(src, "empty"), 0o755)
	os.WriteFile(filepath.Join(src, "photos", "2026", "beach.raw"), bytes.Repeat([]byte("sand"), 300000), 0o644)
	os.WriteFile(filepath.Join(src, "readme.txt"), []byte("hello from ferry\n"), 0o644)
	return src
}

func TestE2ESendReceive(t *testing.T) {
	dest := t.TempDir()
	recv, addr := startReceiver(t, dest, "123456", "--yes")
	src := writeTree(t)
	one := filepath.Join(t.TempDir(), "one.txt")
	os.WriteFile(one, []byte("just one"), 0o644)

	_, stderr, code := sendRun(t, "--to", addr, "--code", "123456", "--text", "a snippet", src, one)
	if code != exitOK {
		t.Fatalf("send exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "every file confirmed") {
		t.Errorf("sender did not report confirmation:\n%s", stderr)
	}
	checkStderr(t, stderr, false)
	var sawText, sawOffer, sawDone bool
	for ev := range recv.events {
		switch ev["event"] {
		case "offer":
			sawOffer = true
		case "text":
			sawText = ev["text"] == "a snippet"
		case "done":
			sawDone = true
		}
	}
	if c := recv.exit(20 * time.Second); c != exitOK {
		t.Fatalf("receive exit %d; stderr:\n%s", c, recv.stderrText())
	}
	if !sawOffer || !sawText || !sawDone {
		t.Errorf("receiver events: offer %v, text %v, done %v", sawOffer, sawText, sawDone)
	}
	for _, rel := range []string{"photos/2026/beach.raw", "readme.txt"} {
		want, _ := os.ReadFile(filepath.Join(src, rel))
		got, err := os.ReadFile(filepath.Join(dest, filepath.Base(src), rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s did not arrive intact: %v", rel, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dest, filepath.Base(src), "empty")); err != nil || !fi.IsDir() {
		t.Errorf("empty folder did not arrive: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "one.txt")); string(got) != "just one" {
		t.Errorf("one.txt: %q", got)
	}
}

func TestE2ETextToStdout(t *testing.T) {
	cmd := ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "121212", "--yes", "--dir", t.TempDir())
	recv := startProc(t, cmd, false)
	recv.stderr.waitFor(t, "listening on 127.0.0.1:", 20*time.Second)
	line := recv.stderr.String()
	line = line[strings.Index(line, "listening on 127.0.0.1:")+len("listening on "):]
	addr := strings.Fields(line)[0]
	if _, stderr, code := sendRun(t, "--to", addr, "--code", "121212", "--quiet", "--text", "hello there"); code != 0 || stderr != "" {
		t.Fatalf("send --quiet: exit %d, stderr %q", code, stderr)
	}
	if c := recv.exit(20 * time.Second); c != 0 {
		t.Fatalf("receive exit %d; stderr:\n%s", c, recv.stderrText())
	}
	if got := recv.stdout.String(); got != "hello there\n" {
		t.Errorf("receiver stdout %q, want the snippet alone", got)
	}
	checkStderr(t, recv.stderrText(), false)
}

func TestE2EWrongCode(t *testing.T) {
	_, addr := startReceiver(t, t.TempDir(), "111111", "--yes")
	_, stderr, code := sendRun(t, "--to", addr, "--code", "222222", "--quiet", writeTree(t))
	if code != exitWrong {
		t.Fatalf("wrong code: exit %d, want %d; stderr:\n%s", code, exitWrong, stderr)
	}
	if !strings.Contains(stderr, "wrong code") {
		t.Errorf("stderr does not say wrong code:\n%s", stderr)
	}
	checkStderr(t, stderr, true)
}

func TestE2EDeclineWithoutTerminal(t *testing.T) {
	// No --yes, no --json, stdin not a terminal (exec gives /dev/null).
	cmd := ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "333333", "--dir", t.TempDir())
	recv := startProc(t, cmd, false)
	recv.stderr.waitFor(t, "listening on 127.0.0.1:", 20*time.Second)
	s := recv.stderr.String()
	addr := strings.Fields(s[strings.Index(s, "listening on ")+len("listening on "):])[0]
	_, stderr, code := sendRun(t, "--to", addr, "--code", "333333", writeTree(t))
	if code != exitDeclined {
		t.Fatalf("declined: sender exit %d, want %d; stderr:\n%s", code, exitDeclined, stderr)
	}
	if c := recv.exit(20 * time.Second); c != exitDeclined {
		t.Errorf("receiver exit %d after declining, want %d", c, exitDeclined)
	}
	if !strings.Contains(recv.stderrText(), "ferry: hint: re-run with --yes") {
		t.Errorf("receiver did not say how to accept:\n%s", recv.stderrText())
	}
	checkStderr(t, recv.stderrText(), true)
	checkStderr(t, stderr, true)
}

func TestE2EInterruptWaitingReceiver(t *testing.T) {
	recv, _ := startReceiver(t, t.TempDir(), "444444", "--yes")
	recv.signal(syscall.SIGTERM)
	for ev := range recv.events {
		if ev["event"] == "error" && ev["kind"] != "cancelled" {
			t.Errorf("error event %v", ev)
		}
	}
	if c := recv.exit(20 * time.Second); c != exitDeclined {
		t.Errorf("interrupted receiver exit %d, want %d; stderr:\n%s", c, exitDeclined, recv.stderrText())
	}
	if !strings.Contains(recv.stderrText(), "cancelled by the receiver (terminated)") {
		t.Errorf("stderr:\n%s", recv.stderrText())
	}
}

func TestE2EUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, stderr, code := sendRun(t, "--to", addr, "--code", "123456", "--quiet", writeTree(t))
	if code != exitFailure {
		t.Fatalf("unreachable: exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	if n := strings.Count(stderr, "\n"); n < 1 || n > 2 {
		t.Errorf("want one or two lines, got:\n%s", stderr)
	}
	checkStderr(t, stderr, true)
}

func TestE2EMissingPath(t *testing.T) {
	_, stderr, code := sendRun(t, "--to", "127.0.0.1:9", "--code", "123456", filepath.Join(t.TempDir(), "nope"))
	if code != exitUsage || !strings.Contains(stderr, "no such file or folder") {
		t.Fatalf("missing path: exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
	}
	checkStderr(t, stderr, true)
}

func TestE2EBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := ferryCmd(t, "receive", "--no-mdns", "--listen", l.Addr().String(), "--code", "123456", "--yes", "--dir", t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitFailure {
		t.Fatalf("busy port: %v, want exit %d; stderr:\n%s", err, exitFailure, stderr.String())
	}
	if !strings.Contains(stderr.String(), "address already in use") || !strings.Contains(stderr.String(), "ferry: hint: ") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	checkStderr(t, stderr.String(), true)
}
