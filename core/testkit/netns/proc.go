package netns

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
)

// Proc is a process running inside a namespace that a test drives through
// its stdin and watches line by line on its stdout: typically a copy of
// the test binary acting as one host.
type Proc struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser
	// Lines is the process's stdout, a line at a time (up to 1 MiB each),
	// closed at its end.
	Lines <-chan string
}

// Start starts name with args inside namespace ns (p.A or p.B), with env
// added to this process's environment and stderr passed through. The
// process is killed and waited for by t.Cleanup, so a test that fails
// midway leaves nothing running; Stop ends it cleanly.
func (p *Pair) Start(t testing.TB, ns string, env []string, name string, args ...string) *Proc {
	t.Helper()
	cmd := p.Command(ns, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v in %s: %v", cmd.Args, ns, err)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &Proc{Cmd: cmd, Stdin: stdin, Lines: lines}
}

// Stop closes the process's stdin, the usual signal to finish, reads the
// rest of its output and waits for it, failing the test unless it exits
// with status 0.
func (pr *Proc) Stop(t testing.TB) {
	t.Helper()
	pr.Stdin.Close()
	for range pr.Lines {
	}
	if err := pr.Cmd.Wait(); err != nil {
		t.Errorf("%v: %v", pr.Cmd.Args, err)
	}
}
