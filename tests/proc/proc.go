// Package proc runs the real ferry binary for end-to-end tests, in
// cli/ferry and in tests/: it builds the binary once per test binary,
// starts each process as a device of its own (a HOME and config folder of
// its own), reads its stdout as --json events or collects it as text,
// collects its stderr, and kills and waits for it at cleanup, so a test
// that fails midway leaves nothing running.
//
// Tests wait on what a process printed, never on a timer: Until waits for
// an event, Output.WaitFor for text.
package proc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// Ferry returns the path of the ferry command built from this module,
// building it on first use, so that a run of unit tests alone builds
// nothing. A TestMain that uses it calls RemoveBinary after m.Run.
func Ferry(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "ferry-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ferry")
		// As it ships (make dist, make ferry): pure Go.
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/ferry-project/ferry/cli/ferry")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("building ferry: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// RemoveBinary removes the binary Ferry built, if it built one.
func RemoveBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// device gives cmd a home and config folder of its own, so that each
// process has its own key and is a device of its own.
func device(t testing.TB, cmd *exec.Cmd) {
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}

// Output collects a stream (stderr, say) and lets a test wait for text in
// it without polling on a timer.
type Output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // a token whenever buf grows
	// Closed is closed when the stream has ended.
	Closed chan struct{}
}

// Collect reads r to its end into an Output.
func Collect(r io.Reader) *Output {
	o := &Output{changed: make(chan struct{}, 1), Closed: make(chan struct{})}
	go func() {
		defer close(o.Closed)
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

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// WaitFor waits until the stream holds s, failing the test if the stream
// ends or timeout passes first.
func (o *Output) WaitFor(t testing.TB, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !strings.Contains(o.String(), s) {
		select {
		case <-o.changed:
		case <-o.Closed:
			if !strings.Contains(o.String(), s) {
				t.Fatalf("stream ended without %q:\n%s", s, o)
			}
		case <-deadline.C:
			t.Fatalf("no %q within %v:\n%s", s, timeout, o)
		}
	}
}

// Proc is a running ferry.
type Proc struct {
	t   testing.TB
	Cmd *exec.Cmd
	// Events are its --json events, closed once it has exited; nil
	// unless started with json.
	Events chan map[string]any
	// Stdout is its standard output when not started with json.
	Stdout *Output
	// Stderr is its standard error, or nil when the caller set Cmd.Stderr.
	Stderr *Output
	done   chan struct{}
	err    error // from Cmd.Wait, set before done is closed
}

// Start starts cmd (built with exec.Command or netns's Pair.Command) as a
// device of its own; its stdout is parsed as JSON events when json is
// set, and collected as text otherwise.
func Start(t testing.TB, cmd *exec.Cmd, json bool) *Proc {
	t.Helper()
	device(t, cmd)
	p := &Proc{t: t, Cmd: cmd, done: make(chan struct{})}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.Stderr = Collect(errPipe)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v: %v", cmd.Args, err)
	}
	var stdoutDone chan struct{}
	if json {
		p.Events = make(chan map[string]any, 1024)
		stdoutDone = make(chan struct{})
		go func() {
			defer close(stdoutDone)
			p.readEvents(out)
		}()
	} else {
		p.Stdout = Collect(out)
		stdoutDone = p.Stdout.Closed
	}
	go func() {
		// Wait closes the pipes: it may run only once both are read.
		<-stdoutDone
		if p.Stderr != nil {
			<-p.Stderr.Closed
		}
		p.err = cmd.Wait()
		if p.Events != nil {
			close(p.Events)
		}
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

// maxLine bounds one --json line. An offer of the largest legal manifest
// lists every entry on one line, tens of MiB; a bound still stops a
// runaway line from taking the test's memory.
const maxLine = 64 << 20

// readEvents parses r's lines as events until r ends. A line it cannot
// read or parse fails the test, and the rest of r is still drained, so
// that ferry never blocks writing to a stdout nobody reads.
func (p *Proc) readEvents(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	defer io.Copy(io.Discard, br)
	for {
		line, err := readLine(br, maxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			var ev map[string]any
			if jerr := json.Unmarshal(line, &ev); jerr != nil {
				p.t.Errorf("stdout line is not JSON (%v): %.200q", jerr, line)
			} else {
				if _, ok := ev["event"].(string); !ok {
					p.t.Errorf("event without an event field: %.200q", line)
				}
				p.Events <- ev
			}
		}
		switch {
		case err == io.EOF:
			return
		case err != nil:
			p.t.Errorf("reading ferry's stdout: %v", err)
			return
		}
	}
}

// readLine returns br's next line without its newline, or an error if
// it is longer than limit bytes.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, fmt.Errorf("a stdout line is longer than %d bytes", limit)
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return bytes.TrimSuffix(line, []byte("\n")), err
		}
	}
}

// Until returns the first event named name, failing the test if ferry
// exits or timeout passes first.
func (p *Proc) Until(name string, timeout time.Duration) map[string]any {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-p.Events:
			if !ok {
				p.t.Fatalf("ferry exited (%v) before a %q event; stderr:\n%s", p.err, name, p.StderrText())
			}
			if ev["event"] == name {
				return ev
			}
		case <-deadline.C:
			p.t.Fatalf("no %q event within %v; stderr:\n%s", name, timeout, p.StderrText())
		}
	}
}

// Exit waits for the process to end, dropping events nobody read, and
// returns its exit code. It fails the test if that takes over timeout.
func (p *Proc) Exit(timeout time.Duration) int {
	p.t.Helper()
	go func() {
		for range p.Events {
		}
	}()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.Cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("ferry did not exit within %v; stderr:\n%s", timeout, p.StderrText())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("waiting for ferry: %v", p.err)
	}
	return 0
}

// StderrText is what ferry wrote to stderr so far.
func (p *Proc) StderrText() string {
	if p.Stderr == nil {
		return "(not captured)"
	}
	return p.Stderr.String()
}

// Signal sends sig to ferry. Under ip netns exec too, the process is
// ferry itself: ip execs it after entering the namespace.
func (p *Proc) Signal(sig os.Signal) {
	p.t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

// Run runs cmd to its end as a device of its own and returns its stdout,
// stderr and exit code.
func Run(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	device(t, cmd)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	return o.String(), e.String(), code
}
