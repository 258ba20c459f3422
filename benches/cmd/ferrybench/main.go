// Command ferrybench runs Ferry's release-mode benchmarks and prints each
// figure beside a baseline measured in the same run, interleaved, with
// the median, the range and every run, failures included. `make bench`
// runs it in full (about ten minutes), `make bench-quick` with -quick
// (a minute or two: small sizes, fewer rounds, every row).
//
// The figures, in the order they run:
//
//	micro     the packages' go test benchmarks: records, stream, BLAKE3, manifest codec
//	stream    the encrypted stream between two processes against plain TCP
//	calls     socket calls per MiB with and without batching and buffering
//	loopback  one large file with bin/ferry, against a plain TCP copy and croc
//	veth      the same across a 1 Gbit/s veth between two namespaces (root)
//	small     folders of 1,000 and 10,000 files of 4 KiB and 100 of 1 MiB with bin/ferry,
//	          against tar over TCP, on loopback and the veth, onto disk and tmpfs
//	records   the record benchmarks interleaved in-process (-only records)
//	ab        two builds of core/transfer against each other (-only ab -ab-exe)
//
// It refuses to run from a -race or -gcflags=-N/-l build, and to measure
// a bin/ferry or test binary built that way. The report goes to stdout
// and, with everything in it as JSON, to benches/results/DATE-COMMIT.json
// and .md (-quick adds "-quick" to the name).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ferry-project/ferry/benches"
)

type options struct {
	only        map[string]bool
	quick       bool
	pairs       int
	streamMiB   int
	fileMiB     int
	crocZMiB    int
	small       int
	smallTmpfs  string // tmpfs for the small figure's second run of each set; "-" for none
	ferryB      string // a second ferry binary for the small figure's A/B row
	benchtime   time.Duration
	microRounds int
	tmp         string
	timeout     time.Duration
	abExe       string
	ferry       string
	streamBench string // core/internal/streambench, built for the stream and calls figures
	croc        string
	results     string
	waitLoad    float64
	waitMax     time.Duration
}

var figureOrder = []string{"micro", "records", "stream", "calls", "loopback", "veth", "small", "ab"}

const defaultFigures = "micro,stream,calls,loopback,veth,small"

// modes are the two sizes of run; a flag given on the command line wins.
var modes = map[bool]options{
	// Full: measured to fit about ten minutes on the 2-core machine
	// (benches/README.md, "What a run costs"). croc's compressed row
	// moves a smaller file: at about 10 MiB/s here a 1 GiB run alone
	// would take over a minute and a half, its ten runs a quarter of an
	// hour.
	false: {pairs: 5, streamMiB: 256, fileMiB: 1024, crocZMiB: 128, small: 10000,
		benchtime: 200 * time.Millisecond, microRounds: 3, timeout: 3 * time.Minute},
	true: {pairs: 3, streamMiB: 64, fileMiB: 128, crocZMiB: 32, small: 10000,
		benchtime: 50 * time.Millisecond, microRounds: 2, timeout: time.Minute},
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-child" {
		os.Exit(runChild(os.Args[2], os.Args[3:]))
	}
	o, only := parseOptions(os.Args[1:])
	if err := benches.CheckThisBuild(); err != nil {
		fmt.Fprintf(os.Stderr, "ferrybench: %v\nbuild it as it ships: go run ./benches/cmd/ferrybench\n", err)
		os.Exit(2)
	}
	o.only = parseFigures(only)
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferrybench: %v\n", err)
		os.Exit(2)
	}
	t, undo := prepareTools(&o, root)
	defer undo()
	handleSignals()
	waited := waitForQuiet(o)

	start := time.Now()
	describeRun(o, root, only, waited, start)
	runFigures(o, root, t)
	rep.Seconds = time.Since(start).Seconds()
	rep.LoadAfter = loadAvg()
	say("Total %s. Load average after: %s.\n", time.Since(start).Round(time.Second), fmtLoad(rep.LoadAfter))
	if err := saveResults(o, root, start); err != nil {
		fmt.Fprintf(os.Stderr, "ferrybench: %v\n", err)
		os.Exit(1)
	}
}

// parseOptions reads the command line, filling what it leaves unset
// from the mode's defaults; it returns -only as given.
func parseOptions(args []string) (options, string) {
	fs := flag.NewFlagSet("ferrybench", flag.ExitOnError)
	only := fs.String("only", defaultFigures, "figures to run, comma-separated, from: "+strings.Join(figureOrder, ","))
	o := options{}
	fs.BoolVar(&o.quick, "quick", false, "small sizes and fewer rounds (every row still runs): a minute or two")
	fs.IntVar(&o.pairs, "pairs", 0, "interleaved rounds per figure (full 5, quick 3)")
	fs.IntVar(&o.streamMiB, "stream-mib", 0, "MiB per stream run (full 256, quick 64)")
	fs.IntVar(&o.fileMiB, "file-mib", 0, "size of the large file on each path, MiB (full 1024, quick 128)")
	fs.IntVar(&o.crocZMiB, "croc-compressed-mib", 0, "size of the file croc's compressed row sends, MiB (full 256, quick 32)")
	fs.IntVar(&o.small, "small-files", 0, "number of 4 KiB files of the small figure's larger folder (its others: 1,000 of 4 KiB, 100 of 1 MiB; full 10000, quick 10000)")
	fs.StringVar(&o.smallTmpfs, "small-tmpfs", "/dev/shm", "a tmpfs folder: the small figure runs each folder there too (- for none)")
	fs.StringVar(&o.ferryB, "ferry-b", "", "a second ferry binary: the small figure adds its row, interleaved, for an A/B of a change")
	fs.DurationVar(&o.benchtime, "benchtime", 0, "-test.benchtime of each microbenchmark run (full 200ms, quick 50ms)")
	fs.IntVar(&o.microRounds, "micro-rounds", 0, "rounds of the microbenchmarks (full 3, quick 2)")
	fs.DurationVar(&o.timeout, "timeout", 0, "longest a single run may take before it is killed and counted as failed (full 3m, quick 1m)")
	fs.StringVar(&o.tmp, "tmp", os.TempDir(), "folder for the file figures' sources and destinations")
	fs.StringVar(&o.abExe, "ab-exe", "", "another ferrybench binary: the ab figure runs its core/transfer children against this one's")
	fs.StringVar(&o.ferry, "ferry", "", "the ferry binary to measure (default bin/ferry in the module, as make build leaves it)")
	fs.StringVar(&o.croc, "croc", "", "a croc "+crocVersion+" binary (default: go install it into $HOME/.cache/ferry-bench)")
	fs.StringVar(&o.results, "results", "", "folder for the results files (default benches/results in the module; - for none)")
	fs.Float64Var(&o.waitLoad, "wait-load", 0, "before starting, wait in one-minute steps while the 1-minute load average is above this (0: do not wait)")
	fs.DurationVar(&o.waitMax, "wait-max", 10*time.Minute, "longest -wait-load waits; the run then starts anyway and says so")
	fs.Parse(args)
	def := modes[o.quick]
	for _, f := range []struct {
		v *int
		d int
	}{{&o.pairs, def.pairs}, {&o.streamMiB, def.streamMiB}, {&o.fileMiB, def.fileMiB}, {&o.crocZMiB, def.crocZMiB}, {&o.small, def.small}, {&o.microRounds, def.microRounds}} {
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	if o.benchtime == 0 {
		o.benchtime = def.benchtime
	}
	if o.timeout == 0 {
		o.timeout = def.timeout
	}
	return o, *only
}

// parseFigures is the set of figures -only names; an unknown name ends
// the run.
func parseFigures(only string) map[string]bool {
	set := map[string]bool{}
	for _, f := range strings.Split(only, ",") {
		f = strings.TrimSpace(f)
		if !containsString(figureOrder, f) {
			fmt.Fprintf(os.Stderr, "ferrybench: no figure %q (have %s)\n", f, strings.Join(figureOrder, ","))
			os.Exit(2)
		}
		set[f] = true
	}
	return set
}

// prepareTools finds or builds what the chosen figures run, recording
// bin/ferry and croc in the report; a missing bin/ferry or a failed
// build ends the run. The returned function removes what it built.
func prepareTools(o *options, root string) (*tools, func()) {
	t := &tools{}
	undo := func() {}
	if o.only["loopback"] || o.only["veth"] || o.only["small"] {
		if o.ferry == "" {
			o.ferry = filepath.Join(root, "bin", "ferry")
		}
		bin, err := checkBinary(o.ferry)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ferrybench: %v\nbuild it as it ships: make ferry\n", err)
			os.Exit(2)
		}
		if v, err := execOutput(o.ferry, "version"); err == nil {
			bin.Version = strings.Join(strings.Fields(v), " ")
		}
		t.ferry, rep.Ferry = o.ferry, bin
		if o.ferryB != "" {
			if _, err := checkBinary(o.ferryB); err != nil {
				fmt.Fprintf(os.Stderr, "ferrybench: -ferry-b: %v\n", err)
				os.Exit(2)
			}
		}
	}
	if o.only["stream"] || o.only["calls"] {
		progress("building core/internal/streambench")
		exe, remove, err := buildStreamBench(root, o.tmp)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ferrybench: %v\n", err)
			os.Exit(2)
		}
		unregister := atExit(remove)
		undo = func() {
			unregister()
			remove()
		}
		o.streamBench = exe
	}
	if o.only["loopback"] || o.only["veth"] {
		t.croc, t.crocErr = findCroc(o.croc)
		if t.crocErr == nil {
			rep.Croc = &binInfo{Path: t.croc}
		} else {
			progress("croc rows skipped: %v", t.crocErr)
		}
	}
	return t, undo
}

// describeRun fills the report's header and prints it: when, which
// commit, the machine, the binary measured and how the figures count.
func describeRun(o options, root, only, waited string, start time.Time) {
	mode := "full"
	if o.quick {
		mode = "quick"
	}
	rep.Date = start.Format("2006-01-02 15:04")
	rep.Commit, rep.Dirty = commit(root)
	rep.Mode = mode
	rep.Machine = describeMachine(o.tmp)
	rep.Options = map[string]any{"figures": only, "pairs": o.pairs, "stream_mib": o.streamMiB, "file_mib": o.fileMiB,
		"croc_compressed_mib": o.crocZMiB, "small_files": o.small, "small_tmpfs": o.smallTmpfs, "ferry_b": o.ferryB, "benchtime": o.benchtime.String(),
		"micro_rounds": o.microRounds, "timeout": o.timeout.String()}
	m := rep.Machine
	dirty := ""
	if rep.Dirty {
		dirty = " (with uncommitted changes)"
	}
	say("# ferrybench %s, %s mode, commit %s%s\n\n", rep.Date, mode, rep.Commit, dirty)
	say("Machine: %s, %s, %d cores, %.1f GiB, Linux %s, %s. Load average before: %s.\n",
		m.Host, m.CPU, m.Cores, m.MemoryGiB, m.Kernel, m.Go, fmtLoad(m.Load))
	if waited != "" {
		say("%s\n", waited)
		rep.Waited = waited
	}
	if rep.Ferry != nil {
		say("bin/ferry: %s (%s; %s).\n", rep.Ferry.Version, rep.Ferry.GoVersion, rep.Ferry.Settings)
	}
	if timeTool == "" {
		say("No /usr/bin/time here: peak RSS is not measured.\n")
	}
	say("\nEvery speed is beside a baseline run in the same invocation, interleaved, %d rounds; median, min–max and every run; a failed or timed-out run is kept and counted, never dropped.\n\n", o.pairs)
}

// runFigures runs the chosen figures in figureOrder, each with its own
// entry in the report, timed and with the load average at its start.
func runFigures(o options, root string, t *tools) {
	figures := map[string]func(){
		"micro":    func() { microFigure(o, root) },
		"records":  func() { recordsFigure(o) },
		"stream":   func() { streamFigure(o) },
		"calls":    func() { callsFigure(o) },
		"loopback": func() { pathFigure(o, t, "loopback") },
		"veth":     func() { pathFigure(o, t, "veth") },
		"small":    func() { smallFigure(o, t) },
		"ab":       func() { abFigure(o) },
	}
	for _, name := range figureOrder {
		if !o.only[name] {
			continue
		}
		f := time.Now()
		current = &figureJSON{Key: name, Load: loadAvg()}
		rep.Figures = append(rep.Figures, current)
		progress("%s (load %s)", name, fmtLoad(current.Load))
		figures[name]()
		current.Seconds = time.Since(f).Seconds()
		say("\n(%s took %s; load average at its start %s)\n\n", name, time.Since(f).Round(time.Second), fmtLoad(current.Load))
		current = nil
	}
}

// saveResults writes the report as JSON and Markdown into -results
// (benches/results by default), named by the run's start and commit;
// -results - writes nothing.
func saveResults(o options, root string, start time.Time) error {
	if o.results == "-" {
		return nil
	}
	dir := o.results
	if dir == "" {
		dir = filepath.Join(root, "benches", "results")
	}
	name := start.Format("2006-01-02-1504") + "-" + rep.Commit
	if o.quick {
		name += "-quick"
	}
	return save(dir, name)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func execOutput(name string, args ...string) (string, error) {
	b, err := exec.Command(name, args...).Output()
	return string(b), err
}

// waitForQuiet waits, in one-minute steps up to o.waitMax, while the
// one-minute load average is above o.waitLoad, and says what happened.
func waitForQuiet(o options) string {
	if o.waitLoad <= 0 {
		return ""
	}
	first := loadAvg()[0]
	began := time.Now()
	for l := first; l > o.waitLoad; l = loadAvg()[0] {
		if time.Since(began)+time.Minute > o.waitMax {
			return fmt.Sprintf("The 1-minute load average was %.2f, above %.2f, and still %.2f after waiting %v: the run started anyway.",
				first, o.waitLoad, l, time.Since(began).Round(time.Second))
		}
		progress("load average %.2f is above %.2f: waiting a minute", l, o.waitLoad)
		time.Sleep(time.Minute)
	}
	if time.Since(began) < time.Second {
		return fmt.Sprintf("The 1-minute load average was %.2f, at or below %.2f: no wait.", first, o.waitLoad)
	}
	return fmt.Sprintf("Waited %v for the 1-minute load average to fall from %.2f to %.2f or below.",
		time.Since(began).Round(time.Second), first, o.waitLoad)
}

// exits holds what must be undone if the run is interrupted: namespaces
// and work folders.
var exits = struct {
	sync.Mutex
	n  int
	fs map[int]func()
}{fs: map[int]func(){}}

// atExit registers f to run on an interrupt; the returned function
// unregisters it (the caller then undoes it itself).
func atExit(f func()) func() {
	exits.Lock()
	defer exits.Unlock()
	exits.n++
	id := exits.n
	exits.fs[id] = f
	return func() {
		exits.Lock()
		delete(exits.fs, id)
		exits.Unlock()
	}
}

// handleSignals makes SIGINT and SIGTERM kill every running process and
// remove the namespaces and work folders before exiting.
func handleSignals() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		progress("%v: stopping every process and removing the namespaces", s)
		running.killAll()
		exits.Lock()
		for _, f := range exits.fs {
			f()
		}
		exits.Unlock()
		os.Exit(130)
	}()
}
