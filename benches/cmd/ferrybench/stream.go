package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-project/ferry/benches"
)

// The stream figures move N bytes from a sender process to a receiver
// process over loopback TCP. One run is one run of core/internal/streambench
// (its package doc says what it measures and how): it sets core/secure's
// benchmark knobs (core/internal/streamtune), which only packages under
// core/ may import, so ferrybench builds it once and runs it per run.

const code = "271828"

type streamRun struct {
	mode       string // plain, aes, chacha
	bytes      int64
	batch      int  // streamtune.Knobs.Batch on the sender; 0 = default
	unbuffered bool // streamtune.Knobs.Unbuffered on the receiver
	prefetch   bool // receiver calls Prefetch before each chunk
}

type streamResult struct {
	mibps        float64
	socketWrites int64 // sender's write calls
	socketReads  int64 // receiver's read calls
}

// buildStreamBench builds core/internal/streambench as it ships
// (-trimpath, none of the flags benches.CheckBuild refuses, checked in
// the binary itself) into a new folder under tmp, and returns the
// binary and a function that removes the folder.
func buildStreamBench(root, tmp string) (exe string, remove func(), err error) {
	dir, err := os.MkdirTemp(tmp, "ferrybench-stream-")
	if err != nil {
		return "", nil, fmt.Errorf("making a folder for streambench: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	exe = filepath.Join(dir, "streambench")
	cmd := exec.Command("go", "build", "-trimpath", "-o", exe, "./core/internal/streambench")
	cmd.Dir = root
	// GOFLAGS is cleared so a -race in the environment cannot slip in.
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("building core/internal/streambench: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if _, err := checkBinary(exe); err != nil {
		remove()
		return "", nil, err
	}
	return exe, remove, nil
}

// streamReport is the JSON line core/internal/streambench prints.
type streamReport struct {
	Err          string  `json:"err"`
	MiBps        float64 `json:"mibps"`
	SocketWrites int64   `json:"socket_writes"`
	SocketReads  int64   `json:"socket_reads"`
}

// runStream runs one transfer and returns its figures or why it failed.
func runStream(o options, r streamRun) (res streamResult, err error) {
	args := []string{"-mode", r.mode, "-bytes", strconv.FormatInt(r.bytes, 10),
		"-batch", strconv.Itoa(r.batch), "-timeout", o.timeout.String()}
	if r.unbuffered {
		args = append(args, "-unbuffered")
	}
	if r.prefetch {
		args = append(args, "-prefetch")
	}
	// streambench stops its own run after o.timeout; this is the backstop
	// should it hang past that.
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout+30*time.Second)
	defer cancel()
	c, err := startCmd(exec.CommandContext(ctx, o.streamBench, args...))
	if err != nil {
		return res, err
	}
	werr := c.cmd.Wait()
	var rep streamReport
	lines := strings.Split(strings.TrimSpace(c.stdout.String()), "\n")
	jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &rep)
	res = streamResult{socketWrites: rep.SocketWrites, socketReads: rep.SocketReads}
	switch {
	case rep.Err != "":
		return res, errors.New(rep.Err)
	case werr != nil:
		return res, fmt.Errorf("streambench: %v: %s", werr, strings.TrimSpace(c.stderr.String()))
	case jerr != nil:
		return res, fmt.Errorf("streambench printed no report: %v", jerr)
	}
	res.mibps = rep.MiBps
	return res, nil
}

// streamFigure: plain TCP, AES-GCM and ChaCha20-Poly1305 streams in
// rounds of plain, AES, plain, ChaCha. AES is paired with the plain run
// before it, ChaCha with the one before it, and the second plain run with
// the first is the A/A.
func streamFigure(o options) {
	n := int64(o.streamMiB) << 20
	plainA := &benches.Series{Name: "plain TCP (A)"}
	plainB := &benches.Series{Name: "plain TCP (A')"}
	aes := &benches.Series{Name: "Ferry AES-256-GCM"}
	chacha := &benches.Series{Name: "Ferry ChaCha20-Poly1305"}
	order := []struct {
		s    *benches.Series
		mode string
	}{{plainA, "plain"}, {aes, "aes"}, {plainB, "plain"}, {chacha, "chacha"}}
	var errs []string
	for round := range o.pairs {
		for _, step := range order {
			res, err := runStream(o, streamRun{mode: step.mode, bytes: n, prefetch: true})
			step.s.Add(res.mibps, err)
			if err != nil {
				errs = append(errs, fmt.Sprintf("round %d, %s: %v", round+1, step.s.Name, err))
			}
		}
	}
	say("## Stream over loopback TCP, sender and receiver in separate processes (%d MiB a run)\n\n", o.streamMiB)
	say("MiB/s:\n")
	say("\n")
	printTable("run", "%.0f", plainA, aes, plainB, chacha)
	say("\n")
	printTable("ratio", "%.3f",
		benches.Ratio("AES-256-GCM / plain (A)", aes, plainA),
		benches.Ratio("ChaCha20-Poly1305 / plain (A')", chacha, plainB),
		benches.Ratio("A/A: plain (A') / plain (A)", plainB, plainA))
	printErrors(errs)
}

func printErrors(errs []string) {
	if len(errs) == 0 {
		return
	}
	say("\n")
	say("Failed runs:\n")
	for _, e := range errs {
		say("- %s\n", e)
	}
}
