package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Every process a file figure starts (Ferry's, croc's, the baselines')
// goes through startProc, which measures it the same way whatever it is:
//
//   - CPU: utime+stime from the process's own rusage (os.ProcessState),
//     which includes the children it waited for;
//   - peak RSS: ru_maxrss as /usr/bin/time reports it for the process it
//     forks. Not the harness's own wait4: Linux starts a child's ru_maxrss
//     at its parent's high-water mark (exec from a vfork, which Go uses,
//     records the parent's), so every direct child of this harness
//     "peaked" at the harness's size. time's fork starts from time's own
//     size, about 1 MiB, which is the floor of every RSS figure here.
//
// A process runs in its own process group, so a timed-out run kills it
// and whatever it started (time's child, a shell pipeline) at once.

// timeTool is GNU time, when installed; without it RSS is not measured.
var timeTool = func() string {
	p, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		return ""
	}
	return p
}()

// procSpec is one process of a transfer.
type procSpec struct {
	role string   // sender, receiver, relay
	ns   string   // network namespace, "" for this one
	argv []string // program and arguments
	env  []string // added to the environment
	// ready, when set, is called with each line the process prints (stdout
	// and stderr) until it returns true; what it returns is the value the
	// process announced (an address). startProc's caller waits for it.
	ready func(line string) (string, bool)
	// watch, when set, sees every line the process prints.
	watch func(line string)
	// gate, when set, holds the process back until it is closed (croc's
	// receiver waits for the relay to say the sender is in the room).
	gate <-chan struct{}
	// service marks a process that does not end by itself (croc's relay):
	// it is stopped once the transfer is over, and that is not a failure.
	service bool
}

// proc is a started procSpec.
type proc struct {
	spec    procSpec
	cmd     *exec.Cmd
	rssFile string
	stdout  *lineTail
	stderr  *lineTail
	readyCh chan string // receives the announced value once
	done    chan struct{}
	exited  time.Time
	waitErr error
}

// procResult is what a run keeps of each process.
type procResult struct {
	CPU    float64 `json:"cpu_s"`   // user+system seconds
	RSSKiB int64   `json:"rss_kib"` // peak RSS, 0 when unknown
	Exit   int     `json:"exit"`    // -1: killed by a signal
}

func startProc(spec procSpec, rssDir string) (*proc, error) {
	p := &proc{spec: spec, readyCh: make(chan string, 1), done: make(chan struct{})}
	argv := spec.argv
	if timeTool != "" {
		f, err := os.CreateTemp(rssDir, spec.role+"-rss-")
		if err != nil {
			return nil, err
		}
		f.Close()
		p.rssFile = f.Name()
		argv = append([]string{timeTool, "-f", "%M", "-o", p.rssFile}, argv...)
	}
	if spec.ns != "" {
		// ip netns exec replaces itself with the command (no fork), so
		// the process's rusage is still the command's.
		argv = append([]string{"ip", "netns", "exec", spec.ns}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), spec.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var (
		once   sync.Once
		lineMu sync.Mutex // stdout's and stderr's lines, one at a time
	)
	onLine := func(line string) {
		lineMu.Lock()
		defer lineMu.Unlock()
		if spec.watch != nil {
			spec.watch(line)
		}
		if spec.ready == nil {
			return
		}
		if v, ok := spec.ready(line); ok {
			once.Do(func() { p.readyCh <- v })
		}
	}
	p.stdout, p.stderr = newLineTail(onLine), newLineTail(onLine)
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	// A grandchild that kept the pipes open must not hang Wait.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s (%s): %w", spec.role, spec.argv[0], err)
	}
	p.cmd = cmd
	running.add(p)
	go func() {
		p.waitErr = cmd.Wait()
		p.exited = time.Now()
		running.remove(p)
		close(p.done)
	}()
	return p, nil
}

// awaitReady waits for the announced value, the process's exit or the
// timeout, whichever comes first.
func (p *proc) awaitReady(timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case v := <-p.readyCh:
		return v, nil
	case <-p.done:
		select {
		case v := <-p.readyCh:
			return v, nil
		default:
		}
		return "", fmt.Errorf("the %s exited before it was ready: %v%s", p.spec.role, p.waitErr, p.tail())
	case <-t.C:
		return "", fmt.Errorf("the %s was not ready after %v%s", p.spec.role, timeout, p.tail())
	}
}

// kill ends the process's whole group at once.
func (p *proc) kill() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }

// stop asks a service to end, and kills it if it does not within two
// seconds. The request goes to the program, not to time above it, which
// would die of it without writing the RSS it measured.
func (p *proc) stop() {
	pid := p.cmd.Process.Pid
	targets := []int{pid}
	if p.rssFile != "" {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err == nil {
			targets = targets[:0]
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					targets = append(targets, c)
				}
			}
		}
	}
	for _, t := range targets {
		syscall.Kill(t, syscall.SIGTERM)
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		p.kill()
		<-p.done
	}
}

// failed reports why an exited process counts as failed, or nil.
func (p *proc) failed() error {
	if p.waitErr == nil {
		return nil
	}
	return fmt.Errorf("the %s: %v%s", p.spec.role, p.waitErr, p.tail())
}

// tail is the end of what the process printed, for an error message.
func (p *proc) tail() string {
	s := strings.TrimSpace(p.stderr.String())
	if s == "" {
		s = strings.TrimSpace(p.stdout.String())
	}
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return ": " + strings.Join(lines, " / ")
}

// result reads the exited process's resource use.
func (p *proc) result() procResult {
	var r procResult
	st := p.cmd.ProcessState
	if st == nil {
		return r
	}
	r.Exit = st.ExitCode()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		r.CPU = tvSeconds(ru.Utime) + tvSeconds(ru.Stime)
	}
	if p.rssFile != "" {
		r.RSSKiB = readRSS(p.rssFile)
		os.Remove(p.rssFile)
	}
	return r
}

func tvSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}

// readRSS parses time's -o file: "%M" on the last line, after a
// "Command exited with non-zero status" or "terminated by signal" line
// when there is one.
func readRSS(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return parseRSS(string(b))
}

func parseRSS(s string) int64 {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	n, err := strconv.ParseInt(strings.TrimSpace(lines[len(lines)-1]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// lineTail is an io.Writer that hands each complete line to onLine and
// keeps the last 64 KiB of what was written.
type lineTail struct {
	mu     sync.Mutex
	onLine func(string)
	part   []byte
	tail   []byte
}

const tailMax = 64 << 10

func newLineTail(onLine func(string)) *lineTail { return &lineTail{onLine: onLine} }

func (l *lineTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tail = append(l.tail, p...)
	if len(l.tail) > 2*tailMax {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-tailMax:]...)
	}
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexAny(l.part, "\n\r")
		if i < 0 {
			break
		}
		if i > 0 {
			l.onLine(string(l.part[:i]))
		}
		l.part = l.part[i+1:]
	}
	// A progress bar without newlines must not grow part forever.
	if len(l.part) > tailMax {
		l.part = l.part[:0]
	}
	return len(p), nil
}

func (l *lineTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tail
	if len(t) > tailMax {
		t = t[len(t)-tailMax:]
	}
	return string(t)
}

// lastLine is the last non-empty line written.
func (l *lineTail) lastLine() string {
	lines := strings.Split(strings.TrimSpace(l.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// running holds every started process until it has exited, so an
// interrupt can kill them all.
var running = &procSet{m: map[*proc]bool{}}

type procSet struct {
	mu sync.Mutex
	m  map[*proc]bool
}

func (s *procSet) add(p *proc)    { s.mu.Lock(); s.m[p] = true; s.mu.Unlock() }
func (s *procSet) remove(p *proc) { s.mu.Lock(); delete(s.m, p); s.mu.Unlock() }
func (s *procSet) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.m {
		p.kill()
	}
}

var errTimedOut = errors.New("timed out")
