// Command browserbench measures the browser page (issue 14, item 6):
// one file (256 MiB unless -mib) sent from headless Chromium's page to
// `ferry receive --web`, and from `ferry send --to-browser` to the page,
// each beside bin/ferry sending the same file to bin/ferry, all on
// loopback and interleaved in rounds (native, page→ferry, ferry→page,
// repeated -rounds times). It prints the median, the range and every run
// of each throughput and of both ratios, the page's peak memory, the
// page's own stage split (core/diag, through the wasm's diag events), the
// page's first events in time (its start, and the rate of each quarter of
// the bytes), the whole machine's CPU per MiB over each run with each
// process's share (a page run can be bound by the machine's two cores
// whatever its split says), and the Chromium version; with -results it
// writes the report there too.
//
// Each browser run gets a fresh Chromium, so that the renderer's peak
// resident set (VmHWM, kept by the kernel) is that run's. The page is
// driven through its ferry bridge (gui/page/wasm's package doc), not its
// buttons: the files come from a file input the harness adds, so the
// page reads them as it would a person's pick. The receive direction is
// measured with each of the page's save methods that a headless browser
// can use without a person: "stream" (the service worker a secure
// context gets) and "memory" (the Blob a phone on a LAN address gets).
// The clock runs from the call into the bridge (or the start of the
// native sender) to the end of the transfer: the promise's resolution,
// then for the page's receive the browser's report that its downloads
// completed.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
	"github.com/ferry-project/ferry/gui/page"
	"github.com/ferry-project/ferry/tests/browser"
)

var (
	mib     = flag.Int("mib", 256, "size of the file, MiB")
	rounds  = flag.Int("rounds", 3, "interleaved rounds")
	ferry   = flag.String("ferry", "bin/ferry", "the ferry binary (make ferry)")
	tmpDir  = flag.String("tmp", os.TempDir(), "folder for the file and the destinations")
	results = flag.String("results", "", "folder to write the report into as DATE-browser.md (empty: stdout only)")
	timeout = flag.Duration("timeout", 3*time.Minute, "longest one run may take; a run over it fails")
	only    = flag.String("only", "native,send,memory", "runs to make each round, from native,send,stream,memory (stream needs a secure context: -lan '')")
	lan     = flag.String("lan", "10.77.0.1", "run everything in a network namespace of its own with this address on its lo, which the browser does not count as loopback; '': on the host's 127.0.0.1")
	pages   = flag.String("pages", "", "other builds whose page to measure too, in the same rounds, as label=path,...: bin/ferry of an earlier commit, to measure one change against it")
	slow    = flag.String("slow", "20mbit", "the rate (tc tbf on the namespace's lo, needs -lan) at which the page's load is timed, -loads times per build; '' skips it")
	nloads  = flag.Int("loads", 3, "page loads timed at -slow per build")
	rates   = flag.String("rates", "0,400mbit", "paths to measure each round, comma-separated: 0 for the path as it is, or a tc tbf rate put on the namespace's lo (needs -lan)")
	settle  = flag.Duration("settle", 0, "how long the page stays open between ready and the transfer's start (a person picking files); 0: at once")
	pin     = flag.Bool("pin", false, "hold the browser (and this harness) to CPU 0 and every ferry process to CPU 1 (taskset), so that the page's own cost per byte sets its rate with nothing else on its core: a phone's view (issue 33, item 3); needs -lan and two CPUs")
	desktop = flag.String("desktop", "process", "the page's peer: process (bin/ferry receive --web, send --to-browser) or inprocess (core/transfer and core/web in this process, the same code without the CLI)")
)

var out bytes.Buffer

// bin is the ferry binary the next process starts from: *ferry, or the
// build of -pages whose page is measured.
var bin string

func say(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	os.Stdout.WriteString(s)
	out.WriteString(s)
}

func progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "browserbench: "+format+"\n", a...)
}

func main() {
	flag.Parse()
	bin = *ferry
	if *lan != "" && os.Getenv(inNetns) == "" {
		os.Exit(reexec())
	}
	if err := prepare(); err != nil {
		fatal(err)
	}
	work, err := os.MkdirTemp(*tmpDir, "browserbench-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "payload.bin")
	if err := makeFile(src, int64(*mib)<<20); err != nil {
		fatal(err)
	}
	size := int64(*mib) << 20
	sayHeader()

	runs := map[string]bool{}
	for _, r := range strings.Split(*only, ",") {
		runs[strings.TrimSpace(r)] = true
	}
	var paths []*path
	for _, r := range strings.Split(*rates, ",") {
		paths = append(paths, newPath(strings.TrimSpace(r)))
	}
	var chromium string
	for r := 1; r <= *rounds; r++ {
		for _, pa := range paths {
			if err := pa.shape(); err != nil {
				fatal(err)
			}
			measureRound(pa, r, runs, work, src, size, &chromium)
		}
	}
	slowLoads, err := measureSlowLoads(work)
	if err != nil {
		fatal(err)
	}
	say("Chromium: %s, headless, phone viewport.\n\n", chromium)
	say("%s\n", benches.Table("page load (fresh browser, the path unshaped)", "%.0f", loads))
	if len(slowLoads) > 0 {
		say("%s\n", benches.Table("page load (fresh browser, then the same browser again) over a "+*slow+" path (tc tbf), from navigation to ferry.ready", "%.0f", slowLoads...))
		say("%s\n", wasmSizes())
	}
	for _, pa := range paths {
		reportPath(pa)
	}
	if *results != "" {
		name := filepath.Join(*results, time.Now().UTC().Format("2006-01-02-1504")+"-browser.md")
		if err := os.WriteFile(name, out.Bytes(), 0o644); err != nil {
			progress("%v", err)
		} else {
			progress("wrote %s", name)
		}
	}
}

// fatal ends a run that cannot go on.
func fatal(err error) {
	fmt.Fprintf(os.Stderr, "browserbench: %v\n", err)
	os.Exit(2)
}

// prepare makes the network namespace's address (with -lan) and checks
// what every run needs: this program and bin/ferry built as they ship,
// and a Chromium to drive.
func prepare() error {
	if *lan != "" {
		if err := setupNetns(*lan); err != nil {
			return err
		}
	}
	if *pin {
		if *lan == "" || runtime.NumCPU() < 2 {
			return errors.New("-pin needs -lan and two CPUs")
		}
		// Every thread of this harness on CPU 0, and so every browser it
		// starts (a child keeps the CPUs of the thread that forked it);
		// start puts ferry on CPU 1. The harness's own work (a poll of
		// the page every 100 ms) shares the browser's core.
		if out, err := exec.Command("taskset", "-a", "-p", "-c", "0", strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
			return fmt.Errorf("taskset: %v: %s", err, out)
		}
	}
	if err := benches.CheckThisBuild(); err != nil {
		return err
	}
	bi, err := buildinfo.ReadFile(*ferry)
	if err == nil {
		err = benches.CheckBuild(bi.Settings)
	}
	if err != nil {
		return fmt.Errorf("%s: %w (build it with make ferry)", *ferry, err)
	}
	_, err = browser.ExecPath()
	return err
}

// sayHeader prints what the run measures and on what.
func sayHeader() {
	ver, _ := exec.Command(*ferry, "version").Output()
	where := "on loopback (127.0.0.1)"
	if *lan != "" {
		where = fmt.Sprintf("on %s, an address of a network namespace's own lo that is not loopback to the browser (no secure context, as on a phone)", *lan)
	}
	say("# browserbench %s: %d MiB %s, %d rounds\n\n", time.Now().UTC().Format("2006-01-02 15:04"), *mib, where, *rounds)
	say("bin/ferry: %s. Machine: %s.\n", strings.Join(strings.Fields(string(ver)), " "), machine())
	if *pin {
		say("Pinned (-pin): the browser on CPU 0, every ferry process on CPU 1 (taskset).\n")
	}
	if *desktop == "inprocess" {
		say("The page's peer: core/transfer and core/web inside browserbench (-desktop inprocess), not bin/ferry's CLI.\n")
	}
	say("\n")
}

// measureRound makes round r's runs on pa, already shaped: the native
// run and its A/A, then each build's page sending and receiving, as runs
// asks. chromium is set to the version each browser run reports.
func measureRound(pa *path, r int, runs map[string]bool, work, src string, size int64, chromium *string) {
	if runs["native"] {
		progress("round %d of %d, %s: native", r, *rounds, pa.name)
		stopCPU := cpuMeter()
		nd, nerr := nativeRun(work, src)
		pa.native.Add(rate(size, nd, nerr))
		if nerr == nil {
			// Both ferry processes start and end inside: the machine's
			// total is the figure, the breakdown is empty.
			pa.splits = append(pa.splits, fmt.Sprintf("round %d, native: %s", r, stopCPU().String(nd, size)))
		}
		// The A/A: the same native run again, in the same round.
		nd, nerr = nativeRun(work, src)
		pa.nativeB.Add(rate(size, nd, nerr))
	}
	for _, v := range pa.pages {
		bin = v.bin
		if runs["send"] {
			progress("round %d of %d, %s: page%s sends", r, *rounds, pa.name, v.label)
			d, m, split, ver, err := pageSend(work, src, size)
			v.send.Add(rate(size, d, err))
			pa.mems = append(pa.mems, fmt.Sprintf("| %d | page%s sends | %s |", r, v.label, m))
			if split != "" {
				pa.splits = append(pa.splits, fmt.Sprintf("round %d, page%s sends: %s", r, v.label, split))
			}
			*chromium = ver
		}
		for _, c := range []struct {
			s      *benches.Series
			method string
		}{{v.recvStream, "stream"}, {v.recvMemory, "memory"}} {
			if !runs[c.method] {
				continue
			}
			progress("round %d of %d, %s: page%s receives (%s)", r, *rounds, pa.name, v.label, c.method)
			d, m, split, ver, err := pageReceive(work, src, size, c.method)
			*chromium = ver
			c.s.Add(rate(size, d, err))
			pa.mems = append(pa.mems, fmt.Sprintf("| %d | page%s receives (%s) | %s |", r, v.label, c.method, m))
			if split != "" {
				pa.splits = append(pa.splits, fmt.Sprintf("round %d, page%s receives (%s): %s", r, v.label, c.method, split))
			}
		}
		bin = *ferry
	}
}

// measureSlowLoads times each build's page load -loads times over lo
// shaped to -slow, interleaved, then unshapes lo; none without -slow or
// -lan.
func measureSlowLoads(work string) ([]*benches.Series, error) {
	if *slow == "" || *lan == "" {
		return nil, nil
	}
	var slowLoads []*benches.Series
	slowPath := newPath(*slow)
	if err := slowPath.shape(); err != nil {
		return nil, err
	}
	var reloads []*benches.Series
	for _, v := range slowPath.pages {
		slowLoads = append(slowLoads, &benches.Series{Name: "page" + v.label + " load to bridge ready at " + *slow + ", ms"})
		reloads = append(reloads, &benches.Series{Name: "page" + v.label + " reload to bridge ready at " + *slow + ", ms"})
	}
	// Interleaved, like the transfers: one load of each build a round.
	for i := 0; i < *nloads; i++ {
		for j, v := range slowPath.pages {
			progress("page%s load at %s, %d of %d", v.label, *slow, i+1, *nloads)
			load, reload, err := slowLoad(work, v.bin)
			slowLoads[j].Add(load, err)
			reloads[j].Add(reload, err)
		}
	}
	slowLoads = append(slowLoads, reloads...)
	newPath("0").shape()
	return slowLoads, nil
}

// reportPath prints pa's section: the throughputs, their ratios to the
// native run, each browser run's peak memory, the page's stage split and
// the failures.
func reportPath(pa *path) {
	say("## %s\n\n", pa.name)
	rows := []*benches.Series{pa.native, pa.nativeB}
	ratios := []*benches.Series{benches.Ratio("A/A: bin/ferry again", pa.nativeB, pa.native)}
	for _, v := range pa.pages {
		for _, x := range []*benches.Series{v.send, v.recvStream, v.recvMemory} {
			if len(x.Values) > 0 {
				rows = append(rows, x)
			}
		}
		for _, x := range []struct {
			name string
			s    *benches.Series
		}{{"sends", v.send}, {"receives, stream", v.recvStream}, {"receives, memory", v.recvMemory}} {
			if len(x.s.Values) > 0 {
				ratios = append(ratios, benches.Ratio("page"+v.label+" "+x.name, x.s, pa.native))
			}
		}
	}
	say("%s\n", benches.Table("throughput", "%.1f", rows...))
	say("%s\n", benches.Table("ratio to bin/ferry → bin/ferry (same round)", "%.2f", ratios...))
	say("Peak memory of each browser run: the renderer's VmHWM (the page and its worker: JS, the wasm's linear memory), the browser process's VmHWM (where Chromium keeps Blob data), and the page's own JS heap (the window's isolate, not the worker's), sampled every 100 ms.\n\n")
	say("| round | run | memory |\n|---|---|---|\n%s\n\n", strings.Join(pa.mems, "\n"))
	if len(pa.splits) > 0 {
		say("Where the time goes (the page's core/diag split, from its done event):\n\n")
		for _, s := range pa.splits {
			say("- %s\n", s)
		}
		say("\n")
	}
	for _, s := range rows {
		for _, e := range s.Errors {
			say("- %s failed: %s\n", s.Name, e)
		}
	}
}

func rate(size int64, d time.Duration, err error) (float64, error) {
	if err != nil {
		return 0, err
	}
	return float64(size) / (1 << 20) / d.Seconds(), nil
}

func machine() string {
	var cores int
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		cores = strings.Count(string(b), "\nprocessor") + 1
	}
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("%d cores, load average %s", cores, strings.Join(strings.Fields(string(load))[:3], " "))
}

// makeFile writes n bytes of benches.Payload noise, a 1 MiB block varied
// per MiB so nothing on the way can dedupe it.
func makeFile(path string, n int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	block := benches.Payload(1 << 20)
	for off := int64(0); off < n; off += 1 << 20 {
		block[0], block[1], block[2] = byte(off>>20), byte(off>>28), byte(off>>36)
		if _, err := f.Write(block[:min(int64(len(block)), n-off)]); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// ferryProc is a running bin/ferry with its --json events.
type ferryProc struct {
	cmd    *exec.Cmd
	events chan map[string]any
	stderr bytes.Buffer
	done   chan error
}

func start(work string, args ...string) (*ferryProc, error) {
	home, err := os.MkdirTemp(work, "home-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	if *pin {
		cmd = exec.Command("taskset", append([]string{"-c", "1", bin}, args...)...)
	}
	p := &ferryProc{cmd: cmd, events: make(chan map[string]any, 4096), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var ev map[string]any
			if dec.Decode(&ev) != nil {
				break
			}
			select {
			case p.events <- ev:
			default: // progress nobody reads
			}
		}
		io.Copy(io.Discard, stdout)
		close(p.events)
		err := p.cmd.Wait()
		if ps := p.cmd.ProcessState; ps != nil {
			exited.Store(ps.Pid(), uint64((ps.UserTime()+ps.SystemTime())/(10*time.Millisecond)))
		}
		p.done <- err
	}()
	return p, nil
}

// until returns the first event that has want as a field (or is named
// want), or an error when ferry exits or the timeout passes first.
func (p *ferryProc) until(want string, d time.Duration) (map[string]any, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				return nil, fmt.Errorf("ferry %s exited before %q: %s", p.cmd.Args[1], want, p.stderr.String())
			}
			if _, has := ev[want]; has || ev["event"] == want {
				return ev, nil
			}
		case <-t.C:
			return nil, fmt.Errorf("no %q from ferry %s within %v", want, p.cmd.Args[1], d)
		}
	}
}

func (p *ferryProc) wait(d time.Duration) error {
	go func() {
		for range p.events {
		}
	}()
	select {
	case err := <-p.done:
		if err != nil {
			return fmt.Errorf("ferry %s: %v: %s", p.cmd.Args[1], err, p.stderr.String())
		}
		return nil
	case <-time.After(d):
		p.cmd.Process.Kill()
		return fmt.Errorf("ferry %s did not end within %v", p.cmd.Args[1], d)
	}
}

func (p *ferryProc) kill() {
	p.cmd.Process.Kill()
}

func code() string {
	b := make([]byte, 3)
	rand.Read(b)
	return fmt.Sprintf("%06d", (int(b[0])<<16|int(b[1])<<8|int(b[2]))%1000000)
}

// nativeRun is the baseline: bin/ferry sends src to a bin/ferry receiver
// on loopback; the clock runs from starting the sender to its exit.
func nativeRun(work, src string) (time.Duration, error) {
	dst, _ := os.MkdirTemp(work, "dst-")
	defer os.RemoveAll(dst)
	c := code()
	recv, err := start(work, "receive", "--dir", dst, "--code", c, "--yes", "--json", "--no-mdns", "--listen", host()+":0")
	if err != nil {
		return 0, err
	}
	defer recv.kill()
	ev, err := recv.until("listening", 20*time.Second)
	if err != nil {
		return 0, err
	}
	addr := fmt.Sprintf("%s:%v", host(), ev["port"])
	t0 := time.Now()
	snd, err := start(work, "send", "--to", addr, "--code", c, "--json", src)
	if err != nil {
		return 0, err
	}
	if err := snd.wait(*timeout); err != nil {
		return 0, err
	}
	d := time.Since(t0)
	return d, recv.wait(30 * time.Second)
}

// link is the first link of ferry's "page" event.
func link(ev map[string]any) string {
	if links, ok := ev["links"].([]any); ok && len(links) > 0 {
		s, _ := links[0].(string)
		return s
	}
	return ""
}

// fragment reads code and fp from a link's fragment.
func fragment(l string) (base, code, fp string, err error) {
	u, err := url.Parse(l)
	if err != nil {
		return "", "", "", err
	}
	q, err := url.ParseQuery(u.Fragment)
	if err != nil {
		return "", "", "", err
	}
	return "http://" + host() + ":" + u.Port() + "/", q.Get("code"), q.Get("fp"), nil
}

// memWatch samples the page's JS heap until stopped and then reads the
// processes' peaks.
func memWatch(b *browser.Browser) func() string {
	idle, _ := b.PeakMemory() // the page loaded, its wasm running, nothing sent yet
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var p int64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if h, err := b.JSHeap(); err == nil && h > p {
				p = h
			}
			select {
			case <-stop:
				peak <- p
				return
			case <-t.C:
			}
		}
	}()
	return func() string {
		close(stop)
		heap := <-peak
		m, err := b.PeakMemory()
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("renderer %.0f MiB (%.0f at load), browser %.0f MiB (%.0f at load), JS heap %.1f MiB",
			mb(m.RendererPeak), mb(idle.RendererPeak), mb(m.BrowserPeak), mb(idle.BrowserPeak), mb(heap))
	}
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// doneSplit formats the diag part of the page's done event.
func doneSplit(done map[string]any) string {
	if done == nil {
		return ""
	}
	var parts []string
	for _, k := range []string{"local", "remote"} {
		if m, ok := done[k].(map[string]any); ok {
			parts = append(parts, fmt.Sprintf("%v: %v", m["end"], m["line"]))
		}
	}
	if v, ok := done["verdict"].(string); ok && v != "" {
		parts = append(parts, "verdict: "+v)
	}
	return strings.Join(parts, "; ")
}

// withDesktop starts the desktop's end of a page transfer, in this
// process or as a ferry process as -desktop says, and opens a fresh
// browser on the page its link names; the caller closes b, and calls
// finished for the desktop end's outcome.
func withDesktop(inprocess, process func() (string, func() error, error)) (b *browser.Browser, code, fp string, finished func() error, err error) {
	start := process
	if *desktop == "inprocess" {
		start = inprocess
	}
	l, finished, err := start()
	if err != nil {
		return nil, "", "", nil, err
	}
	b, code, fp, err = openPage(l)
	return b, code, fp, finished, err
}

// pageSend: the page picks src through a file input and sends it to
// `ferry receive --web`.
func pageSend(work, src string, size int64) (d time.Duration, mem, split, version string, err error) {
	dst, _ := os.MkdirTemp(work, "dst-")
	defer os.RemoveAll(dst)
	c := code()
	b, code, fp, finished, err := withDesktop(
		func() (string, func() error, error) { return inprocessReceiver(dst, c) },
		func() (string, func() error, error) { return processReceiver(work, dst, c) })
	if err != nil {
		return
	}
	defer b.Close()
	version = b.Version()
	if err = b.Eval(`(() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'bench-files';
		i.multiple = true; document.body.appendChild(i); return true })()`, nil); err != nil {
		return
	}
	if err = b.Upload("#bench-files", src); err != nil {
		return
	}
	stopMem := memWatch(b)
	stopCPU := cpuMeter()
	t0 := time.Now()
	var done map[string]any
	err = b.EvalFor(*timeout, fmt.Sprintf(`(() => { %s; return ferry.send({code: %q, fp: %q, name: 'Bench page', diag: true,
		files: document.getElementById('bench-files').files, onEvent: ferryBenchEvent}) })()`, timelineJS, code, fp), &done)
	d = time.Since(t0)
	cpu := stopCPU()
	mem = stopMem()
	if err != nil {
		return
	}
	err = finished()
	cpu.addExited()
	split = doneSplit(done) + timeline(b, d) + "; " + cpu.String(d, size)
	if err == nil {
		err = benches.SameFile(src, filepath.Join(dst, filepath.Base(src)))
	}
	return
}

// pageReceive: `ferry send --to-browser` sends src to the page, which
// saves it with method.
func pageReceive(work, src string, size int64, method string) (d time.Duration, mem, split, version string, err error) {
	b, code, fp, finished, err := withDesktop(
		func() (string, func() error, error) { return inprocessSender(src, code()) },
		func() (string, func() error, error) { return processSender(work, src) })
	if err != nil {
		return
	}
	defer b.Close()
	version = b.Version()
	stopMem := memWatch(b)
	stopCPU := cpuMeter()
	t0 := time.Now()
	var done map[string]any
	err = b.EvalFor(*timeout, fmt.Sprintf(`(() => { %s; return ferry.receive({code: %q, fp: %q, name: 'Bench page', diag: true,
		sink: ferrySave.makeSink({method: %q}), onEvent: ferryBenchEvent}) })()`, timelineJS, code, fp, method), &done)
	var cpu cpuUse
	if err == nil {
		var paths []string
		paths, err = b.WaitDownloads(1, *timeout)
		d = time.Since(t0)
		cpu = stopCPU()
		if err == nil {
			err = benches.SameFile(src, paths[0])
		}
	}
	mem = stopMem()
	if err != nil {
		return
	}
	err = finished()
	cpu.addExited()
	split = doneSplit(done) + timeline(b, d) + "; " + cpu.String(d, size)
	return
}

// timelineJS starts the page's record of when each kind of event first
// arrived, in ms from the operation's start: how much of a run is the
// start (the WebSocket, the handshake, the offer) before the bytes flow.
// Progress also marks when a quarter, a half and three quarters of the
// bytes had passed, for the rate of each quarter: whether the bytes flow
// slower at first (the wasm's code not yet compiled by the optimizing
// tier, its memory still growing).
const timelineJS = `window.ferryBenchT0 = performance.now(); window.ferryBenchEvents = {};
	window.ferryBenchEvent = e => {
		const t = performance.now() - ferryBenchT0;
		if (!(e.event in ferryBenchEvents)) ferryBenchEvents[e.event] = t;
		if (e.event === 'progress' && e.total > 0) {
			for (const q of [25, 50, 75]) {
				const k = 'progress ' + q + '%';
				if (e.done * 100 >= e.total * q && !(k in ferryBenchEvents)) ferryBenchEvents[k] = t;
			}
		}
	}`

// timeline formats the page's event record for the split line: the first
// of each kind, and the whole run's wall time d.
func timeline(b *browser.Browser, d time.Duration) string {
	var ev map[string]float64
	if err := b.Eval(`ferryBenchEvents`, &ev); err != nil || len(ev) == 0 {
		return ""
	}
	type first struct {
		name string
		ms   float64
	}
	var fs []first
	for k, v := range ev {
		fs = append(fs, first{k, v})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].ms < fs[j].ms })
	parts := make([]string, 0, len(fs)+1)
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %.0f ms", f.name, f.ms))
	}
	parts = append(parts, fmt.Sprintf("whole run %.0f ms", float64(d.Microseconds())/1000))
	return "; first events: " + strings.Join(parts, ", ")
}

// processReceiver starts bin/ferry receive --web; finished waits for it
// to exit.
func processReceiver(work, dst, c string) (string, func() error, error) {
	return processEnd(work, "receive", "--web", "--dir", dst, "--code", c, "--yes", "--json", "--no-mdns", "--listen", host()+":0")
}

// processSender starts bin/ferry send --to-browser.
func processSender(work, src string) (string, func() error, error) {
	return processEnd(work, "send", "--to-browser", "--json", "--listen", host()+":0", src)
}

// processEnd starts bin/ferry with args and returns the page link it
// prints and the wait for it to exit.
func processEnd(work string, args ...string) (string, func() error, error) {
	p, err := start(work, args...)
	if err != nil {
		return "", nil, err
	}
	ev, err := p.until("links", 20*time.Second)
	if err != nil {
		p.kill()
		return "", nil, err
	}
	return link(ev), func() error { defer p.kill(); return p.wait(30 * time.Second) }, nil
}

// pageMux serves the page on 127.0.0.1 in this process.
func pageMux(toBrowser bool) (*web.Mux, *secure.Identity, error) {
	srv, err := web.NewServer(web.Config{Name: "Bench desktop", ToBrowser: toBrowser, Files: page.Files})
	if err != nil {
		return nil, nil, err
	}
	if !srv.HasWasm {
		return nil, nil, errors.New("this browserbench was built without ferry.wasm (make wasm)")
	}
	id, err := secure.NewIdentity()
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", host()+":0")
	if err != nil {
		return nil, nil, err
	}
	return web.NewMux(ln, srv), id, nil
}

// inprocessReceiver is ferry receive --web without the CLI.
func inprocessReceiver(dst, c string) (string, func() error, error) {
	mux, id, err := pageMux(false)
	if err != nil {
		return "", nil, err
	}
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dst, Name: "Bench desktop", Identity: id,
		Listener: mux, Code: c, Policy: receive.AcceptAll})
	if err != nil {
		mux.Close()
		return "", nil, err
	}
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()
	port := mux.Addr().(*net.TCPAddr).Port
	return web.Link(host(), port, c, id.Fingerprint()), awaitEnd(served, r, "receiver"), nil
}

// inprocessSender is ferry send --to-browser without the CLI.
func inprocessSender(src, c string) (string, func() error, error) {
	mux, id, err := pageMux(true)
	if err != nil {
		return "", nil, err
	}
	sent := make(chan error, 1)
	go func() {
		_, err := send.Send(context.Background(), send.SendConfig{Addrs: []string{"page"}, Code: c, Identity: id,
			Name: "Bench desktop", Items: []transfer.Item{{Path: src}},
			Dialer: func(ctx context.Context, _ string) (net.Conn, error) { return mux.Accept() }})
		sent <- err
	}()
	port := mux.Addr().(*net.TCPAddr).Port
	return web.Link(host(), port, c, id.Fingerprint()), awaitEnd(sent, mux, "sender"), nil
}

// awaitEnd is the wait for an in-process end (who) to report on done,
// for up to 30 s, closing c after.
func awaitEnd(done <-chan error, c io.Closer, who string) func() error {
	return func() error {
		defer c.Close()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("the %s did not finish", who)
		}
	}
}

// slowLoad times a fresh browser's load of the page of bin's
// `ferry receive --web` over the shaped path, to its bridge being ready,
// then the same browser's load of it again (a person reloading the page,
// or a phone's browser reopening it after a locked screen).
func slowLoad(work, b string) (load, reload float64, err error) {
	bin = b
	defer func() { bin = *ferry }()
	dst, _ := os.MkdirTemp(work, "dst-")
	defer os.RemoveAll(dst)
	recv, err := start(work, "receive", "--web", "--dir", dst, "--code", code(), "--yes", "--json", "--no-mdns", "--listen", host()+":0")
	if err != nil {
		return 0, 0, err
	}
	defer recv.kill()
	ev, err := recv.until("links", 20*time.Second)
	if err != nil {
		return 0, 0, err
	}
	base, _, _, err := fragment(link(ev))
	if err != nil {
		return 0, 0, err
	}
	br, err := browser.NewDirect(context.Background(), *lan)
	if err != nil {
		return 0, 0, err
	}
	defer br.Close()
	var times [2]float64
	for i := range times {
		t0 := time.Now()
		if err := openBridge(br, base); err != nil {
			return 0, 0, err
		}
		loads.Values = loads.Values[:len(loads.Values)-1] // not an unshaped load
		times[i] = float64(time.Since(t0).Microseconds()) / 1000
	}
	return times[0], times[1], nil
}

// wasmSizes is the size of ferry.wasm raw and as served gzipped.
func wasmSizes() string {
	srv, err := web.NewServer(web.Config{Name: "x", Files: page.Files})
	if err != nil || !srv.HasWasm {
		return "ferry.wasm: this browserbench was built without it (make wasm)\n"
	}
	raw, _ := fs.ReadFile(page.Files, "ferry.wasm")
	return fmt.Sprintf("ferry.wasm (this browserbench's build): %.2f MiB raw, %.2f MiB gzipped as served.\n", mb(int64(len(raw))), mb(int64(srv.GzipSize())))
}

// loads are the page's load times: from navigating a fresh browser to
// the wasm's bridge being ready (the page's files over loopback, gzipped,
// the wasm compiled and started).
var loads = &benches.Series{Name: "page load to bridge ready, ms"}

// openPage opens the page that the link line l names in a new browser,
// its bridge ready, and returns the browser with the code and
// fingerprint the page needs; the caller closes the browser.
func openPage(l string) (b *browser.Browser, code, fp string, err error) {
	base, code, fp, err := fragment(l)
	if err != nil {
		return nil, "", "", err
	}
	if b, err = browser.NewDirect(context.Background(), *lan); err != nil {
		return nil, "", "", err
	}
	if err = openBridge(b, base); err != nil {
		b.Close()
		return nil, "", "", err
	}
	return b, code, fp, nil
}

// openBridge opens the page and waits for its wasm to install the bridge.
func openBridge(b *browser.Browser, base string) error {
	t0 := time.Now()
	if err := b.Open(base); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ready bool
		b.Eval(`!!(window.ferry && window.ferry.ready)`, &ready)
		if ready {
			loads.Add(float64(time.Since(t0).Microseconds())/1000, nil)
			// A page built with the fast primitives (prims.js) gets them
			// ready a little after the bridge: the run waits for them,
			// outside the load's time, so as to measure them.
			b.EvalFor(10*time.Second, `new Promise(r => { const f = () => window.ferry.prims ||
				!['ferry-aead', 'ferry-sodium', 'ferry-blake3'].some(n => (document.querySelector('meta[name="' + n + '"]') || {}).content) ?
				r(true) : setTimeout(f, 20); f(); })`, nil)
			time.Sleep(*settle)
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the page's ferry bridge did not load within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cpuUse is the whole machine's CPU time over a run (/proc/stat: every
// process, the browser's, ferry's and the kernel's), and each process's.
type cpuUse struct {
	busy, total uint64 // jiffies
	procs       map[int]procTime
	gone        map[int]procTime // counted at the start, reaped by the stop: their jiffies then
}

// exited holds each ferry process's CPU time, in jiffies, once start's
// goroutine has reaped it: the page's peer often exits, and is reaped,
// before the page's promise has come back to the harness, and /proc
// then knows it no more.
var exited sync.Map // pid -> uint64

// addExited counts the processes that were reaped before the meter
// stopped, from what their reaper recorded; call it once they have been
// waited for (the run's finished).
func (u *cpuUse) addExited() {
	for pid, was := range u.gone {
		if j, ok := exited.Load(pid); ok && j.(uint64) >= was.jiffies {
			u.procs[pid] = procTime{was.kind, j.(uint64) - was.jiffies}
			delete(u.gone, pid)
		}
	}
}

// cpuMeter starts counting; its func stops and returns the use since.
func cpuMeter() func() cpuUse {
	b0, t0 := procStat()
	p0 := procTimes()
	return func() cpuUse {
		b1, t1 := procStat()
		u := cpuUse{busy: b1 - b0, total: t1 - t0, procs: map[int]procTime{}, gone: map[int]procTime{}}
		now := procTimes()
		for pid, t := range now {
			if was, ok := p0[pid]; ok && t.jiffies >= was.jiffies {
				u.procs[pid] = procTime{was.kind, t.jiffies - was.jiffies}
			}
		}
		for pid, was := range p0 {
			if _, ok := now[pid]; !ok && pid > 0 {
				u.gone[pid] = was
			}
		}
		return u
	}
}

// String says, for a run of size bytes that took d, how many cores were
// busy on average, the CPU time the machine spent per MiB moved, and each
// kind of process's share of it. A run that keeps every core busy is
// bound by the machine's CPU, whatever its stages say.
func (u cpuUse) String(d time.Duration, size int64) string {
	if u.total == 0 || d <= 0 {
		return "machine CPU: unknown"
	}
	cores := float64(runtime.NumCPU())
	busy := float64(u.busy) / float64(u.total) * cores
	mib := float64(size) / (1 << 20)
	perMiB := busy * d.Seconds() * 1000 / mib
	by := map[string]uint64{} // a jiffy is 10 ms
	for _, t := range u.procs {
		by[t.kind] += t.jiffies
	}
	kinds := make([]string, 0, len(by))
	for k := range by {
		if float64(by[k])*10/mib >= 0.5 {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return by[kinds[i]] > by[kinds[j]] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %.1f", k, float64(by[k])*10/mib)
	}
	var own, browserAll, busiest uint64
	busiestName := ""
	for key, t := range u.procs {
		if key < 0 { // a renderer's thread, counted in its process too
			if t.jiffies > busiest {
				busiest, busiestName = t.jiffies, strings.TrimPrefix(t.kind, "renderer thread ")
			}
			continue
		}
		if t.kind == webuiPreload {
			continue
		}
		own += t.jiffies
		if strings.HasPrefix(t.kind, "chromium") {
			browserAll += t.jiffies
		}
	}
	ms := func(j uint64) float64 { return float64(j) * 10 / mib }
	phone := ""
	if browserAll > 0 && busiest > 0 {
		// A phone with four cores each a third as fast as this machine's:
		// the busiest thread gets one of them, the browser all four.
		byThread, byTotal := 1000/(3*ms(busiest)), 4*1000/(3*ms(browserAll))
		phone = fmt.Sprintf("; phone view (4 cores, each a third as fast): %.0f MiB/s (busiest thread %s %.1f ms per MiB: %.0f MiB/s; browser %.1f ms per MiB on 4 cores: %.0f MiB/s)",
			min(byThread, byTotal), busiestName, ms(busiest), byThread, ms(browserAll), byTotal)
	}
	return fmt.Sprintf("machine CPU: %.1f of %.0f cores busy, %.1f ms of CPU per MiB; this run's processes %.1f ms per MiB (by process, ms per MiB: %s)%s",
		busy, cores, perMiB, ms(own), strings.Join(parts, ", "), phone)
}

// webuiPreload is the kind of a renderer a fresh Chromium starts in its
// first seconds to preload a page of its own interface. Its CPU is the
// browser's start, not the page's: it fell inside the metered window
// only for a page that loads fast (1.5-2 ms per MiB, every round of
// today's page, few of bc09cd9's, whose wasm compiles longer;
// benches/results/2026-12-06-send33.md), so it is shown but not counted
// in the run's processes.
const webuiPreload = "chromium webui preload (not counted)"

type procTime struct {
	kind    string
	jiffies uint64
}

// procTimes is each process's user and system jiffies, and its kind:
// Chromium's processes by their --type (the browser when none), others
// by their command's name.
//
// In a network namespace of its own (-lan), only the processes in it
// count: the browser and ferry processes this run started, and not
// those of anyone else's tests on a shared machine.
func procTimes() map[int]procTime {
	out := map[int]procTime{}
	ours, _ := os.Readlink("/proc/self/ns/net")
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if *lan != "" {
			if ns, err := os.Readlink("/proc/" + d.Name() + "/ns/net"); err != nil || ns != ours {
				continue
			}
		}
		kind, jiffies, ok := statTimes("/proc/" + d.Name() + "/stat")
		if !ok {
			continue
		}
		if cmd, err := os.ReadFile("/proc/" + d.Name() + "/cmdline"); err == nil && strings.Contains(kind, "chrom") {
			kind = "chromium browser"
			for _, a := range strings.FieldsFunc(string(cmd), func(r rune) bool { return r == 0 || r == ' ' }) {
				if t, ok := strings.CutPrefix(a, "--type="); ok {
					kind = "chromium " + t
				}
				if u, ok := strings.CutPrefix(a, "--utility-sub-type="); ok {
					kind += " " + u
				}
			}
			if bytes.Contains(cmd, []byte("--top-chrome-webui")) {
				kind = webuiPreload
			}
		}
		out[pid] = procTime{kind, jiffies}
		if kind == "chromium renderer" {
			// The renderer's threads on their own (keyed past any pid):
			// the page's main thread, the wasm's worker, IO, V8's helpers.
			tasks, _ := os.ReadDir("/proc/" + d.Name() + "/task")
			for _, t := range tasks {
				tid, err := strconv.Atoi(t.Name())
				if name, j, ok := statTimes("/proc/" + d.Name() + "/task/" + t.Name() + "/stat"); err == nil && ok {
					out[-tid] = procTime{"renderer thread " + name, j}
				}
			}
		}
	}
	return out
}

// statTimes reads a /proc stat file: the command's (or thread's) name
// and its user and system jiffies.
func statTimes(path string) (name string, jiffies uint64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false
	}
	open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 13 {
		return "", 0, false
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return string(b[open+1 : end]), ut + st, true
}

// procStat is the machine's busy and total jiffies since boot.
func procStat() (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i, v := range f[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		if i >= 8 { // guest time is already counted in user
			break
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}
