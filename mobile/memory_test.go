package mobile

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/memprofile"
	"github.com/ferry-project/ferry/core/testkit"
)

// The memory tests run a real 1 GiB transfer over loopback with one end
// driven through this package as a phone app would drive it, in a child
// process of its own (the test binary, re-executed), and measure that
// process alone: peak RSS (VmHWM, reset between phases through
// /proc/self/clear_refs) and peak Go heap (runtime/metrics, sampled) in
// each phase: start-up, traffic, quiet and teardown. The other end is a
// plain core/app Node sending or receiving in the test process, which is
// not measured. A phase over the profile's budget fails the test.

const (
	memChildEnv   = "FERRY_MOBILE_MEMCHILD" // "receive", "receive2" or "send": run as the phone
	memProfileEnv = "FERRY_MOBILE_PROFILE"  // "ios" or "android"
	memDirEnv     = "FERRY_MOBILE_DIR"      // receive: destination; send: the file to send
	memPeerEnv    = "FERRY_MOBILE_PEER"     // send: "port code" of the receiver
	memSize       = 1 << 30                 // bytes transferred
	quietFor      = 2 * time.Second         // length of the quiet phase
	sampleEvery   = 2 * time.Millisecond    // runtime/metrics sampling period
	memTimeout    = 10 * time.Minute        // whole child, on a busy machine
)

func TestMain(m *testing.M) {
	if role := os.Getenv(memChildEnv); role != "" {
		os.Exit(memChild(role))
	}
	if args := os.Getenv(mdnsChildEnv); args != "" {
		os.Exit(mdnsChild(args))
	}
	os.Exit(m.Run())
}

// phaseResult is what the child measured in one phase.
type phaseResult struct {
	Name        string `json:"name"`
	PeakRSS     int64  `json:"peakRSS"`     // VmHWM over the phase
	PeakHeap    int64  `json:"peakHeap"`    // max of /memory/classes/heap/objects:bytes
	PeakGoTotal int64  `json:"peakGoTotal"` // max of Go's mapped memory not returned to the OS
	Samples     int    `json:"samples"`
}

type childResult struct {
	Profile  string        `json:"profile"`
	Budget   int64         `json:"budget"`
	Phases   []phaseResult `json:"phases"`
	Bytes    int64         `json:"bytes"`
	Seconds  float64       `json:"seconds"`
	GCs      uint64        `json:"gcs"`
	Alloc    uint64        `json:"alloc"` // bytes allocated on the heap, whole run
	Failure  string        `json:"failure,omitempty"`
	Leftover int           `json:"leftoverGoroutines"`
}

// meter follows one process's memory through named phases.
type meter struct {
	mu     sync.Mutex
	phases []phaseResult
	stop   chan struct{}
	done   chan struct{}
}

var meterSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/gc/cycles/total:gc-cycles"},
	{Name: "/gc/heap/allocs:bytes"},
}

func startMeter(first string) *meter {
	m := &meter{phases: []phaseResult{{Name: first}}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			m.sample()
			select {
			case <-tick.C:
			case <-m.stop:
				return
			}
		}
	}()
	return m
}

func (m *meter) sample() {
	m.mu.Lock()
	defer m.mu.Unlock()
	metrics.Read(meterSamples)
	heap := int64(meterSamples[0].Value.Uint64())
	goTotal := int64(meterSamples[1].Value.Uint64() - meterSamples[2].Value.Uint64())
	p := &m.phases[len(m.phases)-1]
	p.PeakHeap = max(p.PeakHeap, heap)
	p.PeakGoTotal = max(p.PeakGoTotal, goTotal)
	p.Samples++
}

// next closes the current phase (its peak RSS is VmHWM since the last
// reset) and starts the named one with the peak reset to the current RSS.
func (m *meter) next(name string) {
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.phases[len(m.phases)-1].PeakRSS = vmHWM()
	resetHWM()
	m.phases = append(m.phases, phaseResult{Name: name})
}

func (m *meter) finish() []phaseResult {
	m.sample()
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	m.phases[len(m.phases)-1].PeakRSS = vmHWM()
	return m.phases
}

// vmHWM reads the process's peak resident set size in bytes.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// resetHWM sets VmHWM back to the current RSS (Linux 4.0 and later).
func resetHWM() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// phoneApp is the app side of the child: it accepts offers and waits for
// the end, as a Kotlin or Swift shell would, and does nothing else. In a
// receive of several (many) it accepts each sender's offer by its ID and
// ends after want transfers are done.
type phoneApp struct {
	node  *Node
	tr    *Transfer
	many  bool
	want  int
	ready chan struct{} // closed once tr is set
	end   chan *failure // nil failure: done
	dones int
	bytes int64 // the done events'
}

func (a *phoneApp) OnEvent(js string) {
	c, err := parseCall(js)
	switch {
	case err != nil:
		a.end <- &failure{"bad_event", err.Error()}
	case c.method == "offer" && a.many:
		<-a.ready
		a.tr.AcceptTransfer(c.id)
	case c.method == "offer":
		<-a.ready
		a.tr.Accept()
	case c.method == "done":
		var n int64
		fmt.Sscan(strings.Fields(c.arg)[1], &n)
		a.bytes += n
		if a.dones++; a.dones == a.want {
			a.end <- nil
		}
	case c.method == "error" && c.id != 0:
		a.end <- c.fail
	}
}

// memChild is the phone process. It prints "READY port code" (receive)
// once listening, then "RESULT {json}" at the end, and returns the exit
// status.
func memChild(role string) int {
	m := startMeter("start-up")
	res := childResult{Profile: os.Getenv(memProfileEnv)}
	var prof memprofile.Profile
	switch res.Profile {
	case "ios":
		prof = memprofile.IOS
	case "android":
		prof = memprofile.Android
	default:
		fmt.Fprintf(os.Stderr, "child: unknown profile %q\n", res.Profile)
		return 2
	}
	res.Budget = prof.Budget
	if role == "receive2" {
		// iOS's profile takes one sender at once; it is measured with
		// two to see whether an extension's budget would hold them.
		prof.MaxTransfers = 2
	}
	fail := func(format string, args ...any) int {
		res.Failure = fmt.Sprintf(format, args...)
		res.Phases = m.finish()
		out, _ := json.Marshal(res)
		fmt.Printf("RESULT %s\n", out)
		return 1
	}
	baseline := runtime.NumGoroutine()

	data, err := os.MkdirTemp("", "ferry-phone-key-")
	if err != nil {
		return fail("key folder: %v", err)
	}
	defer os.RemoveAll(data)
	app := &phoneApp{ready: make(chan struct{}), end: make(chan *failure, 2), want: 1}
	cfg := NewConfig()
	cfg.Name = "Phone (" + role + ")"
	cfg.DataDir = data
	cfg.profile = &prof
	node, err := NewNode(cfg, app)
	if err != nil {
		return fail("%v", err)
	}
	app.node = node

	var start time.Time
	switch role {
	case "receive", "receive2":
		opts := NewReceiveOptions()
		opts.Dir = os.Getenv(memDirEnv)
		opts.Listen = "127.0.0.1:0"
		// One sender, one transfer that ends the receive; or two
		// senders at once, each accepted by its ID, the receive going
		// on after them (Close ends it).
		opts.MaxTransfers = 1
		if role == "receive2" {
			// A picked code lets in one sender (the first to prove it
			// uses it up): both laptops type one fixed code, as a
			// classroom's would.
			opts.MaxTransfers, app.many, app.want, opts.Code = 2, true, 2, "135790"
		}
		tr, err := node.Receive(opts)
		if err != nil {
			return fail("%v", err)
		}
		app.tr = tr
		close(app.ready)
		m.next("traffic")
		start = time.Now()
		fmt.Printf("READY %d %s\n", tr.Port(), tr.Code())
	case "send":
		port, code, _ := strings.Cut(os.Getenv(memPeerEnv), " ")
		p := NewPlatformPeer()
		p.InstanceName = "Laptop (TEST)"
		p.Port, _ = strconv.Atoi(port)
		p.Addrs = "127.0.0.1"
		p.TxtJSON = `{"v": "1", "name": "Laptop"}`
		if err := node.PeerFound(p); err != nil {
			return fail("%v", err)
		}
		items, _ := json.Marshal([]map[string]string{{"path": os.Getenv(memDirEnv)}})
		so := NewSendOptions()
		so.Peer = p.InstanceName
		so.Code = code
		so.ItemsJSON = string(items)
		m.next("traffic")
		start = time.Now()
		tr, err := node.Send(so)
		if err != nil {
			return fail("%v", err)
		}
		app.tr = tr
		close(app.ready)
	default:
		return fail("unknown role %q", role)
	}

	select {
	case f := <-app.end:
		if f != nil {
			return fail("transfer failed: %s: %s", f.Kind, f.Message)
		}
	case <-time.After(memTimeout):
		return fail("transfer did not end within %v", memTimeout)
	}
	res.Seconds = time.Since(start).Seconds()
	res.Bytes = app.bytes

	m.next("quiet")
	time.Sleep(quietFor) // the phase is a length of idle time: nothing to wait on

	m.next("teardown")
	if err := node.Close(); err != nil {
		return fail("closing: %v", err)
	}
	for i := 0; i < 100 && runtime.NumGoroutine() > baseline; i++ {
		time.Sleep(10 * time.Millisecond) // polling the count: nothing to wait on
	}
	res.Leftover = runtime.NumGoroutine() - baseline
	res.Phases = m.finish()
	metrics.Read(meterSamples)
	res.GCs = meterSamples[3].Value.Uint64()
	res.Alloc = meterSamples[4].Value.Uint64()
	out, _ := json.Marshal(res)
	fmt.Printf("RESULT %s\n", out)
	return 0
}

// runChild runs the test binary as the phone. onReady, if set, gets the
// READY line's fields, on the calling goroutine, and stop, which ends the
// child at once: a sender that failed calls it, so that a phone left
// waiting for it fails the test now rather than at its timeout.
func runChild(t *testing.T, role, profile, dir, peer string, onReady func(port int, code string, stop func())) childResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), memTimeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), memChildEnv+"="+role, memProfileEnv+"="+profile, memDirEnv+"="+dir, memPeerEnv+"="+peer)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var res childResult
	got := false
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "READY "):
			f := strings.Fields(line)
			port, _ := strconv.Atoi(f[1])
			if onReady != nil {
				onReady(port, f[2], cancel)
			}
		case strings.HasPrefix(line, "RESULT "):
			if err := json.Unmarshal([]byte(line[len("RESULT "):]), &res); err != nil {
				t.Fatalf("child result: %v", err)
			}
			got = true
		default:
			t.Logf("child: %s", line)
		}
	}
	werr := cmd.Wait()
	if !got {
		t.Fatalf("child gave no result (%v)", werr)
	}
	return res
}

// report logs the child's figures and fails on a breach of the budget.
func report(t *testing.T, what string, res childResult) {
	t.Helper()
	const mb = float64(memprofile.MiB)
	t.Logf("%s, %s profile (budget %.0f MiB): %d bytes in %.1fs (%.0f MiB/s), %d GCs, %.1f MiB allocated",
		what, res.Profile, float64(res.Budget)/mb, res.Bytes, res.Seconds, float64(res.Bytes)/mb/max(res.Seconds, 1e-9), res.GCs, float64(res.Alloc)/mb)
	worst := int64(0)
	for _, p := range res.Phases {
		t.Logf("  %-9s peak RSS %6.2f MiB   peak Go heap %6.2f MiB   peak Go mapped %6.2f MiB   (%d samples)",
			p.Name, float64(p.PeakRSS)/mb, float64(p.PeakHeap)/mb, float64(p.PeakGoTotal)/mb, p.Samples)
		worst = max(worst, p.PeakRSS)
		if p.PeakRSS <= 0 {
			t.Errorf("%s: no RSS figure for %s", what, p.Name)
		}
	}
	if res.Failure != "" {
		t.Errorf("%s: %s", what, res.Failure)
	}
	if worst > res.Budget {
		t.Errorf("%s: OVER BUDGET: peak RSS %.2f MiB > %.0f MiB", what, float64(worst)/mb, float64(res.Budget)/mb)
	}
	if res.Leftover > 0 {
		t.Errorf("%s: %d goroutines outlived Close", what, res.Leftover)
	}
}

// sparseFile makes a 1 GiB file that takes no disk space.
func sparseFile(t *testing.T) string {
	return testkit.SparseFile(t, filepath.Join(t.TempDir(), "one-gib.bin"), memSize)
}

// eachProfile runs f as a subtest per mobile profile, with a fresh
// destination folder (removed when the subtest ends, freeing its 1 GiB)
// and a fresh device called "Laptop" for the end in this process.
func eachProfile(t *testing.T, f func(t *testing.T, profile, dst string, laptop *app.Node)) {
	for _, profile := range []string{"ios", "android"} {
		t.Run(profile, func(t *testing.T) {
			f(t, profile, t.TempDir(), newLaptop(t, "Laptop"))
		})
	}
}

// newLaptop is the other end in this process, as a computer runs it: a
// core/app Node in a config folder of its own, recording nothing.
func newLaptop(t *testing.T, name string) *app.Node {
	t.Helper()
	n, err := app.New(app.Config{Name: name, ConfigDir: t.TempDir(), NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}
