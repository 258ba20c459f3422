package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// These test the harness's own machinery, quickly and with real
// processes (sh), so they can run in make unit; the benchmarks themselves
// never run under go test.

func TestParseBenchLine(t *testing.T) {
	l, ok := parseBenchLine("BenchmarkHash/hasher/chunk=262076-2   \t   987\t    117893 ns/op\t2222.99 MB/s\t       0 B/op\t       0 allocs/op")
	if !ok || l.name != "Hash/hasher/chunk=262076" || l.nsOp != 117893 || l.mbps != 2222.99 || l.bytesOp != 0 || l.allocs != 0 {
		t.Fatalf("got %+v, %v", l, ok)
	}
	l, ok = parseBenchLine("BenchmarkOfferDecode-2   	     602	    411004 ns/op	 106.69 MB/s	   97393 B/op	    1002 allocs/op")
	if !ok || l.name != "OfferDecode" || l.allocs != 1002 || l.bytesOp != 97393 {
		t.Fatalf("got %+v, %v", l, ok)
	}
	for _, bad := range []string{"", "PASS", "ok  \tgithub.com/x\t0.6s", "BenchmarkX-2 --- FAIL: boom", "goos: linux", "BenchmarkX-2  12  abc ns/op"} {
		if l, ok := parseBenchLine(bad); ok {
			t.Errorf("%q parsed as %+v", bad, l)
		}
	}
}

func TestParseRSS(t *testing.T) {
	for in, want := range map[string]int64{
		"7204\n": 7204,
		"Command terminated by signal 15\n18432\n":      18432,
		"Command exited with non-zero status 1\n9000\n": 9000,
		"":          0,
		"garbage\n": 0,
	} {
		if got := parseRSS(in); got != want {
			t.Errorf("parseRSS(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestListening(t *testing.T) {
	port, ok := listening(`{"event":"listening","code":"271828","port":32845,"addresses":["127.0.0.1"]}`)
	if !ok || port != "32845" {
		t.Fatalf("got %q, %v", port, ok)
	}
	for _, bad := range []string{`{"event":"connected","port":1}`, `{"event":"listening"}`, "listening on 1234", ""} {
		if _, ok := listening(bad); ok {
			t.Errorf("%q taken for a listening event", bad)
		}
	}
}

func TestLineTail(t *testing.T) {
	var lines []string
	lt := newLineTail(func(s string) { lines = append(lines, s) })
	lt.Write([]byte("one\ntw"))
	lt.Write([]byte("o\rbar 50%\r\nthree\n"))
	if got := strings.Join(lines, "|"); got != "one|two|bar 50%|three" {
		t.Fatalf("lines %q", got)
	}
	if lt.lastLine() != "three" {
		t.Fatalf("last line %q", lt.lastLine())
	}
	big := strings.Repeat("x", 3*tailMax)
	lt.Write([]byte(big))
	if n := len(lt.String()); n > tailMax {
		t.Fatalf("kept %d bytes, more than %d", n, tailMax)
	}
}

// sh is a procSpec running a shell script.
func sh(role, script string, args ...string) procSpec {
	return procSpec{role: role, argv: append([]string{"sh", "-c", script, "sh"}, args...)}
}

const listenLine = `echo '{"event":"listening","port":4242}'`

func TestExecuteSucceeds(t *testing.T) {
	recv := sh("receiver", listenLine)
	recv.ready = listening
	var gotPort string
	rr := execute(plan{before: []procSpec{recv}, after: func(a []string) []procSpec {
		gotPort = a[0]
		return []procSpec{sh("sender", `exit 0`)}
	}}, 1<<20, 10*time.Second, t.TempDir())
	if rr.Err != "" {
		t.Fatal(rr.Err)
	}
	if gotPort != "4242" {
		t.Fatalf("the sender was given %q, want the port the receiver announced", gotPort)
	}
	if rr.MiBps <= 0 || rr.Procs["sender"].Exit != 0 || rr.Procs["receiver"].Exit != 0 {
		t.Fatalf("run %+v", rr)
	}
}

func TestExecuteKeepsAFailure(t *testing.T) {
	recv := sh("receiver", listenLine+`; exec sleep 30`)
	recv.ready = listening
	start := time.Now()
	rr := execute(plan{before: []procSpec{recv}, after: func([]string) []procSpec {
		return []procSpec{sh("sender", `echo "no route to the receiver" >&2; exit 3`)}
	}}, 1<<20, 30*time.Second, t.TempDir())
	if !strings.Contains(rr.Err, "the sender") || !strings.Contains(rr.Err, "no route to the receiver") {
		t.Fatalf("error %q does not say which process failed and why", rr.Err)
	}
	// The receiver, which would wait for the sender forever, was killed.
	if time.Since(start) > 20*time.Second || rr.Procs["receiver"].Exit == 0 {
		t.Fatalf("the receiver was not stopped: %+v after %v", rr.Procs["receiver"], time.Since(start))
	}
}

func TestExecuteTimesOut(t *testing.T) {
	rr := execute(plan{after: func([]string) []procSpec {
		// A child of the shell must die too: the whole group is killed.
		return []procSpec{sh("sender", `sleep 30 & wait`)}
	}}, 1<<20, 300*time.Millisecond, t.TempDir())
	if !strings.Contains(rr.Err, "timed out") {
		t.Fatalf("a run over its timeout gave %q, want a failure saying it timed out", rr.Err)
	}
}

func TestExecuteStopsServicesAndWaitsForGates(t *testing.T) {
	gate := make(chan struct{})
	relay := sh("relay", `echo ready; echo "room x has 1"; exec sleep 30`)
	relay.service = true
	relay.ready = func(l string) (string, bool) { return "", l == "ready" }
	closed := false
	relay.watch = func(l string) {
		if strings.HasSuffix(l, " has 1") && !closed {
			closed = true
			close(gate)
		}
	}
	recv := sh("receiver", `exit 0`)
	recv.gate = gate
	start := time.Now()
	rr := execute(plan{before: []procSpec{relay}, after: func([]string) []procSpec {
		return []procSpec{sh("sender", `exit 0`), recv}
	}}, 1<<20, 20*time.Second, t.TempDir())
	if rr.Err != "" {
		t.Fatalf("stopping a service failed the run: %s", rr.Err)
	}
	if _, ok := rr.Procs["receiver"]; !ok {
		t.Fatal("the gated receiver never ran")
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("the relay was not stopped when the transfer ended (%v)", time.Since(start))
	}
}

func TestCheckBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// This test binary is built as go test builds it: no -race under
	// make unit, so it must pass; CheckBuild's own test covers refusals.
	if _, err := checkBinary(exe); err != nil && !strings.Contains(err.Error(), "-race") {
		t.Fatalf("checkBinary(test binary) = %v", err)
	}
	if _, err := checkBinary("/bin/sh"); err == nil {
		t.Fatal("/bin/sh, not a Go binary, was accepted")
	}
}

// TestStreamBench builds core/internal/streambench as the stream and
// calls figures do and runs it: its JSON reaches the harness, and the
// knobs reach core/secure (unbatched writes make more write calls,
// unbuffered reads more read calls). It checks counts, never speed.
func TestStreamBench(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	exe, remove, err := buildStreamBench(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	o := options{timeout: time.Minute, streamBench: exe}
	run := func(r streamRun) streamResult {
		t.Helper()
		r.bytes = 4 << 20
		res, err := runStream(o, r)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		if res.mibps <= 0 || res.socketWrites <= 0 || res.socketReads <= 0 {
			t.Fatalf("%+v: incomplete figures %+v", r, res)
		}
		return res
	}
	run(streamRun{mode: "plain"})
	run(streamRun{mode: "chacha", prefetch: true})
	def := run(streamRun{mode: "aes", prefetch: true})
	tuned := run(streamRun{mode: "aes", batch: 1, unbuffered: true})
	if tuned.socketWrites <= def.socketWrites || tuned.socketReads <= def.socketReads {
		t.Fatalf("knobs had no effect: default %+v, Batch 1 and Unbuffered %+v", def, tuned)
	}
	if _, err := runStream(o, streamRun{mode: "rot13", bytes: 1}); err == nil || !strings.Contains(err.Error(), "rot13") {
		t.Fatalf("an unknown mode gave %v", err)
	}
}

func TestParseOptions(t *testing.T) {
	o, only := parseOptions([]string{"-quick", "-pairs", "7", "-only", "small"})
	q := modes[true]
	if only != "small" || !o.quick || o.pairs != 7 {
		t.Errorf("given flags: got only %q, quick %v, pairs %d", only, o.quick, o.pairs)
	}
	if o.fileMiB != q.fileMiB || o.small != q.small || o.benchtime != q.benchtime || o.timeout != q.timeout {
		t.Errorf("quick defaults not filled in: %+v", o)
	}
	o, only = parseOptions(nil)
	f := modes[false]
	if only != defaultFigures || o.quick || o.pairs != f.pairs || o.fileMiB != f.fileMiB || o.timeout != f.timeout {
		t.Errorf("full defaults: got only %q, %+v", only, o)
	}
}

func TestMicroRatios(t *testing.T) {
	res := &microResults{series: map[string]*microSeries{}}
	add := func(name string, mbps ...float64) {
		s := res.get(name)
		for _, v := range mbps {
			s.mbps.Add(v, nil)
		}
	}
	add("AEADSealAESGCM", 100, 200)
	add("FerrySealAESGCM", 50, 100)
	add("AEADOpenAESGCM", 100, 200)
	add("FerryOpenAESGCM", 50) // a round missing: no ratio
	add("Hash/hasher/chunk=1", 30)
	add("Hash/blake3.Hasher/chunk=1", 10)
	var got []string
	for _, r := range microRatios(res) {
		got = append(got, r.Name)
		if r.Name == "Conn.Write / bare AEAD seal, AESGCM" && r.Median() != 0.5 {
			t.Errorf("%s: median %v, want 0.5", r.Name, r.Median())
		}
	}
	want := "Conn.Write / bare AEAD seal, AESGCM|core/transfer hasher / blake3.Hasher"
	if strings.Join(got, "|") != want {
		t.Errorf("ratios %q, want %q", strings.Join(got, "|"), want)
	}
}
