package main

import (
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
	r := &run{rr: &rr, tmp: tmp, timeout: timeout, exits: make(chan *proc, 16)}
	defer r.collect()
	announced, ok := r.startReady(pl.before)
	if !ok {
		return
	}
	for _, p := range r.all {
		r.watchExit(p)
	}
	r.deadline = time.NewTimer(timeout)
	defer r.deadline.Stop()
	start := time.Now()
	if !r.startClocked(pl.after(announced)) {
		return
	}
	r.awaitWorkers()
	for _, p := range r.services {
		p.stop()
	}
	rr.Seconds = r.end.Sub(start).Seconds()
	if rr.Err == "" {
		rr.MiBps = float64(size) / (1 << 20) / rr.Seconds
	}
	return rr
}

// A run is one execute in progress. Its goroutine owns every field; the
// only other goroutines are one per worker, which send it on exits once.
type run struct {
	rr       *runResult
	tmp      string
	timeout  time.Duration
	all      []*proc // every process started, in order
	services []*proc // the ones stopped, not awaited, when the workers are done
	exits    chan *proc
	pending  int       // workers that have not exited yet
	end      time.Time // the last worker's exit so far
	deadline *time.Timer
}

// fail records err as the run's failure, unless one is recorded
// already, and kills every process.
func (r *run) fail(err error) {
	if r.rr.Err == "" {
		r.rr.Err = err.Error()
	}
	for _, p := range r.all {
		p.kill()
	}
}

// collect makes sure every process has exited, killing what has not, and
// records each one's result under its role.
func (r *run) collect() {
	for _, p := range r.all {
		select {
		case <-p.done:
		default:
			p.kill()
			<-p.done
		}
		r.rr.Procs[p.spec.role] = p.result()
	}
}

// startReady starts the processes that come before the clock, awaiting
// each one's announcement if it makes one; ok is false if the run failed.
func (r *run) startReady(specs []procSpec) (announced []string, ok bool) {
	for _, s := range specs {
		p, err := startProc(s, r.tmp)
		if err != nil {
			r.fail(err)
			return nil, false
		}
		r.all = append(r.all, p)
		if s.ready != nil {
			v, err := p.awaitReady(30 * time.Second)
			if err != nil {
				r.fail(err)
				return nil, false
			}
			announced = append(announced, v)
		}
	}
	return announced, true
}

// watchExit keeps p among the services, or counts it as a pending worker
// whose exit will arrive on r.exits.
func (r *run) watchExit(p *proc) {
	if p.spec.service {
		r.services = append(r.services, p)
		return
	}
	r.pending++
	go func() { <-p.done; r.exits <- p }()
}

// exited takes in a worker's exit: its failure fails the run, and the
// clock stops at the last exit.
func (r *run) exited(p *proc) {
	r.pending--
	if err := p.failed(); err != nil {
		r.fail(err)
	}
	if p.exited.After(r.end) {
		r.end = p.exited
	}
}

// timedOut fails the run and drains the workers it killed.
func (r *run) timedOut() {
	r.fail(fmt.Errorf("%w after %v", errTimedOut, r.timeout))
	for r.pending > 0 {
		r.exited(<-r.exits)
	}
}

// startClocked starts the processes that run with the clock, each after
// its gate opens; ok is false if the run failed or timed out first.
func (r *run) startClocked(specs []procSpec) (ok bool) {
	for _, s := range specs {
		if !r.awaitGate(s.gate) {
			return false
		}
		p, err := startProc(s, r.tmp)
		if err != nil {
			r.fail(err)
			return false
		}
		r.all = append(r.all, p)
		r.watchExit(p)
	}
	return true
}

// awaitGate waits for gate (nil is open) while taking in the workers'
// exits; ok is false if one failed or the run timed out first.
func (r *run) awaitGate(gate <-chan struct{}) (ok bool) {
	for gated := gate != nil; gated; {
		select {
		case <-gate:
			gated = false
		case p := <-r.exits:
			r.exited(p)
			if r.rr.Err != "" {
				return false
			}
		case <-r.deadline.C:
			r.timedOut()
			return false
		}
	}
	return true
}

// awaitWorkers waits for every worker to exit, or for the timeout.
func (r *run) awaitWorkers() {
	for r.pending > 0 {
		select {
		case p := <-r.exits:
			r.exited(p)
		case <-r.deadline.C:
			r.timedOut()
		}
	}
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
		return benches.SameSamples(src, got[0], size)
	}
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
