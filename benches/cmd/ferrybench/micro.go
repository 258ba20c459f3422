package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ferry-project/ferry/benches"
)

// The microbenchmarks are the packages' own go test benchmarks, each with
// b.SetBytes and b.ReportAllocs. The harness builds each package's test
// binary once (and refuses one built with -race or -N -l, as it refuses
// itself), then runs them all once per round, round after round, so a
// benchmark and its baseline are paired within a round as the file
// figures are.
var microPackages = []struct {
	pkg, bench, about string
}{
	{"./benches", ".", "one record sealed and opened (Conn.Write, Conn.Read) against the bare AEAD, both ciphers"},
	{"./core/secure", "^BenchmarkStream", "the stream over loopback TCP in one process, with and without batching and buffering"},
	{"./core/filehash", "^BenchmarkHash", "BLAKE3 (core/filehash's Hasher, named hasher, against lukechampine.com/blake3's Hasher)"},
	{"./core/receive", "^BenchmarkOffer", "the manifest codec"},
}

// benchLine is one result line of go test -bench.
type benchLine struct {
	name    string  // without "Benchmark" and the -GOMAXPROCS suffix
	mbps    float64 // MB/s (10^6 bytes), 0 without SetBytes
	nsOp    float64
	bytesOp float64
	allocs  float64
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parseBenchLine reads "BenchmarkX-2  123  456 ns/op  78.9 MB/s  0 B/op
// 0 allocs/op"; ok is false for any other line.
func parseBenchLine(line string) (benchLine, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return benchLine{}, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return benchLine{}, false
	}
	b := benchLine{name: procsSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")}
	seen := false
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return benchLine{}, false
		}
		switch f[i+1] {
		case "ns/op":
			b.nsOp, seen = v, true
		case "MB/s":
			b.mbps = v
		case "B/op":
			b.bytesOp = v
		case "allocs/op":
			b.allocs = v
		}
	}
	return b, seen
}

// microSeries holds one benchmark's rounds.
type microSeries struct {
	mbps, nsOp, bytesOp, allocs *benches.Series
}

// microResults are every benchmark's rounds, in the order first seen.
type microResults struct {
	series map[string]*microSeries
	order  []string
}

// get is name's series, made empty the first time it is seen.
func (m *microResults) get(name string) *microSeries {
	if s, ok := m.series[name]; ok {
		return s
	}
	s := &microSeries{&benches.Series{Name: name}, &benches.Series{Name: name}, &benches.Series{Name: name}, &benches.Series{Name: name}}
	m.series[name] = s
	m.order = append(m.order, name)
	return s
}

// microBinary is a package's test binary, built, and how to run it.
type microBinary struct {
	exe, dir, bench string
}

// microFigure builds the packages' test binaries, runs their benchmarks
// in rounds, and reports each benchmark and its ratio to its baseline.
func microFigure(o options, root string) {
	say("## Microbenchmarks (go test -bench, -benchtime %v, %d rounds)\n\n", o.benchtime, o.microRounds)
	dir, err := os.MkdirTemp(o.tmp, "ferrybench-micro-")
	if err != nil {
		skip("cannot make a folder for the test binaries: %v", err)
		return
	}
	defer os.RemoveAll(dir)
	bins := buildMicroBinaries(root, dir)
	say("\n")
	res, failures := runMicroRounds(o, bins)
	reportMicro(res)
	if ratios := microRatios(res); len(ratios) > 0 {
		say("\nThroughput ratios, each run against its baseline's run in the same round:\n\n")
		printTable("ratio", "%.3f", ratios...)
	}
	if len(failures) > 0 {
		say("\nFailed benchmark runs:\n\n")
		for _, f := range failures {
			say("- %s\n", mdEscape(f))
		}
	}
}

// buildMicroBinaries builds each of microPackages' test binaries into
// dir and lists them; a package that does not build, or builds in a way
// that cannot be measured, is said and left out.
func buildMicroBinaries(root, dir string) []microBinary {
	var bins []microBinary
	for _, mp := range microPackages {
		exe := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(mp.pkg, "./"), "/", "_")+".test")
		progress("micro: building %s's test binary", mp.pkg)
		cmd := exec.Command("go", "test", "-c", "-o", exe, mp.pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			say("- %s: cannot build its tests, left out: %v: %s\n", mp.pkg, err, mdEscape(strings.TrimSpace(string(b))))
			current.Notes = append(current.Notes, mp.pkg+": build failed: "+strings.TrimSpace(string(b)))
			continue
		}
		if _, err := checkBinary(exe); err != nil {
			say("- %s: %v; left out\n", mp.pkg, err)
			continue
		}
		bins = append(bins, microBinary{exe, filepath.Join(root, mp.pkg), mp.bench})
		say("- `%s` (`-bench '%s'`): %s\n", mp.pkg, mp.bench, mp.about)
	}
	return bins
}

// runMicroRounds runs every binary once a round, o.microRounds rounds,
// and gathers each benchmark's results; a binary that fails is kept in
// failures with the end of its output, its results so far counted.
func runMicroRounds(o options, bins []microBinary) (res *microResults, failures []string) {
	res = &microResults{series: map[string]*microSeries{}}
	for round := range o.microRounds {
		for _, b := range bins {
			progress("micro: round %d of %d, %s", round+1, o.microRounds, filepath.Base(b.exe))
			cmd := exec.Command(b.exe, "-test.run", "^$", "-test.bench", b.bench,
				"-test.benchtime", o.benchtime.String(), "-test.benchmem")
			cmd.Dir = b.dir
			outp, err := cmd.CombinedOutput()
			sc := bufio.NewScanner(strings.NewReader(string(outp)))
			for sc.Scan() {
				if l, ok := parseBenchLine(sc.Text()); ok {
					s := res.get(l.name)
					s.mbps.Add(l.mbps, nil)
					s.nsOp.Add(l.nsOp, nil)
					s.bytesOp.Add(l.bytesOp, nil)
					s.allocs.Add(l.allocs, nil)
				}
			}
			if err != nil {
				failures = append(failures, fmt.Sprintf("round %d, %s: %v: %s", round+1, filepath.Base(b.exe), err, lastLines(string(outp), 5)))
			}
		}
	}
	return res, failures
}

// reportMicro prints one row per benchmark and keeps its series in the
// report.
func reportMicro(res *microResults) {
	say("| benchmark | MB/s, median (min–max) | ns/op, median | B/op, max | allocs/op, max | runs |\n|---|---|---|---|---|---|\n")
	for _, name := range res.order {
		s := res.series[name]
		mb := "—"
		if _, hi := s.mbps.Range(); hi > 0 {
			mb = cell("%.0f", s.mbps)
		}
		_, bmax := s.bytesOp.Range()
		_, amax := s.allocs.Range()
		say("| %s | %s | %.0f | %.0f | %.0f | %d |\n", name, mb, s.nsOp.Median(), bmax, amax, len(s.mbps.Values))
		current.Tables = append(current.Tables, &tableJSON{Head: name, Series: []*seriesJSON{
			named(s.mbps, "MB/s"), named(s.nsOp, "ns/op"), named(s.bytesOp, "B/op"), named(s.allocs, "allocs/op")}})
	}
}

// microRatios are the throughput ratios within a round, each benchmark
// against its baseline; a pair with a side missing, or with runs that do
// not pair up, is left out.
func microRatios(res *microResults) []*benches.Series {
	var ratios []*benches.Series
	pair := func(label, b, a string) {
		sb, sa := res.series[b], res.series[a]
		if sb == nil || sa == nil || len(sb.mbps.Values) != len(sa.mbps.Values) {
			return
		}
		ratios = append(ratios, benches.Ratio(label, sb.mbps, sa.mbps))
	}
	for _, c := range []string{"AESGCM", "ChaCha"} {
		pair("Conn.Write / bare AEAD seal, "+c, "FerrySeal"+c, "AEADSeal"+c)
		pair("Conn.Read / bare AEAD open, "+c, "FerryOpen"+c, "AEADOpen"+c)
	}
	for _, name := range res.order {
		if strings.HasPrefix(name, "Hash/hasher/") {
			pair("core/transfer hasher / blake3.Hasher", name, strings.Replace(name, "Hash/hasher/", "Hash/blake3.Hasher/", 1))
		}
	}
	for _, name := range res.order {
		if strings.HasPrefix(name, "Stream/") && name != "Stream/default" {
			pair(name+" / Stream/default", name, "Stream/default")
		}
	}
	pair("A/A: AEADSealAESGCMAgain / AEADSealAESGCM", "AEADSealAESGCMAgain", "AEADSealAESGCM")
	return ratios
}

func named(s *benches.Series, unit string) *seriesJSON {
	j := seriesOf(s)
	j.Name = unit
	return j
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
