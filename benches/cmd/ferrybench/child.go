package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// childReport is what every child prints as its last line on stdout.
type childReport struct {
	Err          string `json:"err,omitempty"`
	SocketWrites int64  `json:"socket_writes,omitempty"`
	SocketReads  int64  `json:"socket_reads,omitempty"`
	VmHWMKiB     int64  `json:"vmhwm_kib,omitempty"`      // from /proc/self/status at exit
	PeakHeap     uint64 `json:"peak_heap,omitempty"`      // largest live heap seen, bytes
	PeakGoMapped uint64 `json:"peak_go_mapped,omitempty"` // largest memory the Go runtime had mapped, bytes
	Verdict      string `json:"verdict,omitempty"`        // the sender's core/diag verdict
}

var children = map[string]func(args []string) childReport{
	"pipe-send":  pipeSendChild,
	"pipe-recv":  pipeRecvChild,
	"file-send":  fileSendChild,
	"file-recv":  fileRecvChild,
	"plain-send": plainSendChild,
	"plain-recv": plainRecvChild,
}

func runChild(role string, args []string) int {
	f, ok := children[role]
	if !ok {
		fmt.Fprintf(os.Stderr, "ferrybench: no child role %q\n", role)
		return 2
	}
	stop := sampleHeap()
	rep := f(args)
	rep.PeakHeap, rep.PeakGoMapped = stop()
	rep.VmHWMKiB = vmHWM()
	// Children whose stdout is data (pipe-recv) report on stderr.
	out := os.Stdout
	if role == "pipe-recv" {
		out = os.Stderr
	}
	json.NewEncoder(out).Encode(rep)
	if rep.Err != "" {
		return 1
	}
	return 0
}

// child is a running copy of this program in one role.
type child struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	cancel context.CancelFunc
}

func self() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}

// startChild starts this program in role, killed after timeout.
func startChild(timeout time.Duration, role string, args ...string) (*child, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	c, err := startCmd(exec.CommandContext(ctx, self(), append([]string{"-child", role}, args...)...))
	if err != nil {
		cancel()
		return nil, err
	}
	c.cancel = cancel
	return c, nil
}

// startCmd starts cmd with its output kept for wait.
func startCmd(cmd *exec.Cmd) (*child, error) {
	c := &child{cmd: cmd, cancel: func() {}}
	cmd.Stdout, cmd.Stderr = &c.stdout, &c.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// wait returns the child's report, and an error if it failed.
func (c *child) wait() (childReport, error) {
	defer c.cancel()
	err := c.cmd.Wait()
	var rep childReport
	// The report is the last line of stdout, or of stderr for a child
	// whose stdout is data.
	jerr := lastJSON(c.stdout.String(), &rep)
	if jerr != nil {
		jerr = lastJSON(c.stderr.String(), &rep)
	}
	if jerr != nil && err == nil {
		err = fmt.Errorf("child printed no report: %v", jerr)
	}
	if rep.Err != "" {
		err = fmt.Errorf("%s", rep.Err)
	} else if err != nil {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(c.stderr.String()))
	}
	return rep, err
}

func fail(format string, a ...any) childReport {
	return childReport{Err: fmt.Sprintf(format, a...)}
}

func lastJSON(out string, rep *childReport) error {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return json.Unmarshal([]byte(lines[len(lines)-1]), rep)
}
