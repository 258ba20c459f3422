package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ferry-project/ferry/benches"
)

// A plan is one transfer: the processes started before the clock (a
// receiver that must be listening, croc's relay), each awaited until it
// announces it is ready, and the ones started with the clock, made from
// what the first ones announced. The clock runs from starting the first
// of these to the exit of the last process that is not a service.
type plan struct {
	before []procSpec
	after  func(announced []string) []procSpec
}

// runResult is one run of a plan, failed or not.
type runResult struct {
	Round   int                   `json:"round"`
	Seconds float64               `json:"seconds"`
	MiBps   float64               `json:"mib_per_s"`
	Err     string                `json:"error,omitempty"`
	Procs   map[string]procResult `json:"processes"`
}

// execute runs pl, moving size bytes, with every process's rusage and
// time's RSS file under tmp. A process that fails ends the run (the
// others are killed), as does the run's timeout: either way it counts
// as failed.
func execute(pl plan, size int64, timeout time.Duration, tmp string) (rr runResult) {
	rr.Procs = map[string]procResult{}
	var all []*proc
	defer func() {
		for _, p := range all {
			select {
			case <-p.done:
			default:
				p.kill()
				<-p.done
			}
			rr.Procs[p.spec.role] = p.result()
		}
	}()
	fail := func(err error) {
		if rr.Err == "" {
			rr.Err = err.Error()
		}
		for _, p := range all {
			p.kill()
		}
	}
	var announced []string
	for _, s := range pl.before {
		p, err := startProc(s, tmp)
		if err != nil {
			fail(err)
			return
		}
		all = append(all, p)
		if s.ready != nil {
			v, err := p.awaitReady(30 * time.Second)
			if err != nil {
				fail(err)
				return
			}
			announced = append(announced, v)
		}
	}
	var (
		services []*proc
		exits    = make(chan *proc, 16)
		pending  int // workers that have not exited yet
		end      time.Time
	)
	watchExit := func(p *proc) {
		if p.spec.service {
			services = append(services, p)
			return
		}
		pending++
		go func() { <-p.done; exits <- p }()
	}
	for _, p := range all {
		watchExit(p)
	}
	exited := func(p *proc) {
		pending--
		if err := p.failed(); err != nil {
			fail(err)
		}
		if p.exited.After(end) {
			end = p.exited
		}
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	timedOut := func() {
		fail(fmt.Errorf("%w after %v", errTimedOut, timeout))
		for pending > 0 { // all killed: drain them
			exited(<-exits)
		}
	}
	start := time.Now()
	for _, s := range pl.after(announced) {
		for gated := s.gate != nil; gated; {
			select {
			case <-s.gate:
				gated = false
			case p := <-exits:
				exited(p)
				if rr.Err != "" {
					return
				}
			case <-deadline.C:
				timedOut()
				return
			}
		}
		p, err := startProc(s, tmp)
		if err != nil {
			fail(err)
			return
		}
		all = append(all, p)
		watchExit(p)
	}
	for pending > 0 {
		select {
		case p := <-exits:
			exited(p)
		case <-deadline.C:
			timedOut()
		}
	}
	for _, p := range services {
		p.stop()
	}
	rr.Seconds = end.Sub(start).Seconds()
	if rr.Err == "" {
		rr.MiBps = float64(size) / (1 << 20) / rr.Seconds
	}
	return rr
}

// listening is the ready function of every receiver here: Ferry's first
// --json event, which the harness's own receivers copy. It announces the
// port.
func listening(line string) (string, bool) {
	var ev struct {
		Event string `json:"event"`
		Port  int    `json:"port"`
	}
	if json.Unmarshal([]byte(line), &ev) != nil || ev.Event != "listening" || ev.Port == 0 {
		return "", false
	}
	return strconv.Itoa(ev.Port), true
}

// announceListening is the harness's receivers' side of listening.
func announceListening(w io.Writer, port int) error {
	_, err := fmt.Fprintf(w, "{\"event\":\"listening\",\"port\":%d}\n", port)
	return err
}

// cleanup removes a run's destination and waits for the file system to
// write back what the removal dirtied, outside the clock, so no run pays
// for the one before it.
func cleanup(dst string) {
	os.RemoveAll(dst)
	syscall.Sync()
}

// holdsCopy is the check of the one-file figures: dst holds exactly one
// regular file, of src's size, and with src's bytes at its start, middle
// and end (reading all of it would cost seconds a run for nothing the
// tools under test do not check themselves).
func holdsCopy(src string, size int64) func(dst string) error {
	return func(dst string) error {
		var got []string
		filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				got = append(got, p)
			}
			return nil
		})
		if len(got) != 1 {
			return fmt.Errorf("received %d files, want 1", len(got))
		}
		return sameSamples(src, got[0], size)
	}
}

func sameSamples(a, b string, size int64) error {
	fa, err := os.Open(a)
	if err != nil {
		return err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return err
	}
	defer fb.Close()
	fi, err := fb.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != size {
		return fmt.Errorf("received %d bytes of %d", fi.Size(), size)
	}
	const window = 64 << 10
	pa, pb := make([]byte, window), make([]byte, window)
	for _, off := range []int64{0, size / 2, max(0, size-window)} {
		n, _ := fa.ReadAt(pa, off)
		m, _ := fb.ReadAt(pb, off)
		if n != m || !bytes.Equal(pa[:n], pb[:m]) {
			return fmt.Errorf("received file differs from the source near byte %d", off)
		}
	}
	return nil
}

// row is one contender of a file figure: its runs, and how to make one.
type row struct {
	key   string // ferry, plain, plain2, croc, crocz, tar, tar2
	name  string
	size  int64
	plan  func(dst string) plan
	check func(dst string) error
	skip  string // why the row was not run; empty if it was

	mibps *benches.Series
	runs  []runResult
}

// rounds runs every row that is not skipped once per round, in order,
// pairs times, each into a fresh folder under work that check inspects
// and cleanup removes, both outside the clock. Every run, failed or not,
// is kept.
func rounds(o options, work string, rows []*row) {
	for round := range o.pairs {
		for _, r := range rows {
			if r.skip != "" {
				continue
			}
			if r.mibps == nil {
				r.mibps = &benches.Series{Name: r.name}
			}
			progress("round %d of %d: %s", round+1, o.pairs, r.name)
			rr := runOnce(o, work, r)
			rr.Round = round + 1
			var err error
			if rr.Err != "" {
				err = fmt.Errorf("%s", rr.Err)
				progress("  failed: %s", rr.Err)
			} else {
				progress("  %.1f MiB/s", rr.MiBps)
			}
			r.mibps.Add(rr.MiBps, err)
			r.runs = append(r.runs, rr)
		}
	}
}

func runOnce(o options, work string, r *row) runResult {
	dst, err := os.MkdirTemp(work, "dst-")
	if err != nil {
		return runResult{Err: err.Error(), MiBps: math.NaN()}
	}
	defer cleanup(dst)
	rr := execute(r.plan(dst), r.size, o.timeout, work)
	if rr.Err == "" {
		if err := r.check(dst); err != nil {
			rr.Err = err.Error()
			rr.MiBps = 0
		}
	}
	return rr
}
