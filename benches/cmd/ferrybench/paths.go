package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/core/testkit/netns"
)

// The path figures send one large file file to file with the real
// bin/ferry, two processes, on one path, interleaved in rounds with the
// same file on the same path by:
//
//   - a plain TCP copy (the harness's own two children: no encryption, no
//     hash, read/write loops of ChunkSize), the ceiling, run first and
//     last in each round, so the last against the first is the A/A;
//   - croc, through a relay of its own on the same path, without and
//     with its compression.
//
// The loopback path is lo inside one network namespace made for the
// figure (every row runs in it, croc included, which must not run in the
// host's); without root, the host's lo, and croc is skipped. The 1 Gbit/s
// path is two namespaces joined by a veth pair that tbf limits on both
// ends; it needs root.

// netPath is where a file figure's processes run.
type netPath struct {
	key, title     string
	sendNS, recvNS string // "" is this process's namespace
	host           string // where receivers listen and senders dial
	about          string // how the path was made, for the report
	noCroc         string // why croc cannot run here, if it cannot
}

// linkRate is the 1 Gbit/s path's link: core/testkit/netns shapes it with tbf
// (burst 256 KiB, about 2 ms at this rate; latency 50 ms).
const linkRate = "1gbit"

// makePath creates the namespaces of path key ("loopback" or "veth") and
// returns it with the function that removes them, or why it cannot be
// made.
func makePath(key string) (*netPath, func(), error) {
	ok, why := netns.Available()
	switch key {
	case "loopback":
		if !ok {
			return &netPath{key: key, title: "loopback", host: "127.0.0.1",
				about:  "lo of the host's network namespace (no root for a namespace of its own)",
				noCroc: "croc runs only inside a network namespace (it looks up its public relay's name at start), and " + why}, func() {}, nil
		}
		lab, err := netns.Create()
		if err != nil {
			return nil, nil, err
		}
		return &netPath{key: key, title: "loopback", sendNS: lab.A, recvNS: lab.A, host: "127.0.0.1",
			about: "lo inside one network namespace made for the figure (" + lab.A + "); every row runs in it"}, func() { lab.Remove() }, nil
	case "veth":
		if !ok {
			return nil, nil, fmt.Errorf("%s", why)
		}
		lab, err := netns.Create()
		if err != nil {
			return nil, nil, err
		}
		if err := lab.Limit(linkRate); err != nil {
			lab.Remove()
			return nil, nil, err
		}
		return &netPath{key: key, title: "1 Gbit/s link", sendNS: lab.A, recvNS: lab.B, host: lab.AddrB.String(),
			about: fmt.Sprintf("two network namespaces joined by a veth pair, tc tbf rate %s burst 256kb latency 50ms on both ends; senders in %s, receivers (and croc's relay) in %s at %s; 1 Gbit/s is 119.2 MiB/s of IP packets",
				linkRate, lab.A, lab.B, lab.AddrB)}, func() { lab.Remove() }, nil
	}
	return nil, nil, fmt.Errorf("no path %q", key)
}

// tools is what the file figures run: bin/ferry, croc, this program.
type tools struct {
	ferry   string
	croc    string
	crocErr error
}

func ferryEnv(homes, who string) []string {
	h := filepath.Join(homes, "ferry-"+who)
	os.MkdirAll(h, 0o700)
	return []string{"HOME=" + h, "XDG_CONFIG_HOME=" + filepath.Join(h, ".config")}
}

// ferryPlan is `ferry receive` listening first, then `ferry send` with the
// clock: what cli/README.md tells a script to do. diag adds --diag to the
// sender, and watch sees its lines.
func ferryPlan(exe string, p *netPath, homes, src, dst string, diag bool, watch func(string)) plan {
	return plan{
		before: []procSpec{{role: "receiver", ns: p.recvNS, env: ferryEnv(homes, "receiver"), ready: listening,
			argv: []string{exe, "receive", "--dir", dst, "--code", code, "--listen", net.JoinHostPort(p.host, "0"),
				"--no-mdns", "--yes", "--json"}}},
		after: func(a []string) []procSpec {
			argv := []string{exe, "send", "--to", net.JoinHostPort(p.host, a[0]), "--code", code, "--json"}
			if diag {
				argv = append(argv, "--diag")
			}
			return []procSpec{{role: "sender", ns: p.sendNS, env: ferryEnv(homes, "sender"), watch: watch,
				argv: append(argv, src)}}
		},
	}
}

// plainPlan is the ceiling: this program's plain-recv and plain-send.
func plainPlan(p *netPath, src, dst string) plan {
	exe := self()
	return plan{
		before: []procSpec{{role: "receiver", ns: p.recvNS, ready: listening,
			argv: []string{exe, "-child", "plain-recv", "-dir", dst, "-listen", p.host}}},
		after: func(a []string) []procSpec {
			return []procSpec{{role: "sender", ns: p.sendNS,
				argv: []string{exe, "-child", "plain-send", "-addr", net.JoinHostPort(p.host, a[0]), "-path", src}}}
		},
	}
}

// pathWithWork makes path key (makePath) and a work folder in o.tmp
// named after prefix, both removed by done, the folder first, or by the
// exit handler should the harness be stopped before. When either cannot
// be made it says so (skip) and ok is false.
func pathWithWork(o options, key, prefix string) (p *netPath, work string, done func(), ok bool) {
	p, remove, err := makePath(key)
	if err != nil {
		skip("%s", err)
		return nil, "", nil, false
	}
	undo := atExit(remove)
	if work, err = os.MkdirTemp(o.tmp, prefix); err != nil {
		skip("cannot make a work folder: %v", err)
		undo()
		remove()
		return nil, "", nil, false
	}
	removeWork := func() { os.RemoveAll(work) }
	undoWork := atExit(removeWork)
	return p, work, func() { undoWork(); removeWork(); undo(); remove() }, true
}

// pathFigure runs the path's rounds and reports them.
func pathFigure(o options, t *tools, key string) {
	title := map[string]string{"loopback": "loopback", "veth": "a 1 Gbit/s link"}[key]
	say("## One %s file, file to file, on %s\n\n", mib(o.fileMiB), title)
	p, work, done, ok := pathWithWork(o, key, "ferrybench-"+key+"-")
	if !ok {
		return
	}
	defer done()

	progress("%s: writing the %s source", key, mib(o.fileMiB))
	src, err := writeSources(o, work)
	if err != nil {
		skip("cannot write the source file: %v", err)
		return
	}
	homes := filepath.Join(work, "homes")
	rows := pathRows(t, p, homes, src)
	if p.noCroc == "" && t.crocErr == nil && rep.Croc != nil && rep.Croc.Version == "" {
		rep.Croc.Version = crocVersionOf(t.croc, p.recvNS)
	}
	rounds(o, work, rows)

	say("Path: %s. Source: %s of pseudo-random bytes (incompressible), written and fsynced once; each run receives into a fresh folder, checked (size; bytes at the start, middle and end) and removed, then sync(2), outside the clock. The clock runs from starting the sender to the exit of the last process of the transfer (croc: sender and receiver; its relay is started before and stopped after). %d rounds in the order of the rows.\n\n",
		p.about, mib(o.fileMiB), o.pairs)
	if o.crocZMiB != o.fileMiB {
		say("The compressed croc row sends a %s file of the same bytes: see its size column.\n\n", mib(o.crocZMiB))
	}
	reportRows(rows, "plain", "ceiling", "croc", "plain2")
	diagRun(o, t, p, key, homes, work, src)
}

// pathSources are the files a path figure sends: the large file, and
// the one croc's compressed row sends (the same file unless
// -croc-compressed-mib differs from -file-mib).
type pathSources struct {
	path, pathZ string
	size, sizeZ int64
}

// writeSources writes the path figure's source files into work.
func writeSources(o options, work string) (pathSources, error) {
	s := pathSources{path: filepath.Join(work, "big.bin"), size: int64(o.fileMiB) << 20}
	if err := makeBigFile(s.path, s.size); err != nil {
		return s, err
	}
	s.sizeZ, s.pathZ = int64(o.crocZMiB)<<20, s.path
	if o.crocZMiB != o.fileMiB {
		s.pathZ = filepath.Join(work, "compressed-row.bin")
		if err := makeBigFile(s.pathZ, s.sizeZ); err != nil {
			return s, err
		}
	}
	return s, nil
}

// pathRows are the path figure's rows in the order each round runs
// them; the croc rows say why they are skipped where croc cannot run.
func pathRows(t *tools, p *netPath, homes string, src pathSources) []*row {
	size, sizeZ := src.size, src.sizeZ
	rows := []*row{
		{key: "plain", name: "plain TCP copy (A), the ceiling", size: size, check: holdsCopy(src.path, size),
			plan: func(dst string) plan { return plainPlan(p, src.path, dst) }},
		{key: "ferry", name: "Ferry (bin/ferry send/receive)", size: size, check: holdsCopy(src.path, size),
			plan: func(dst string) plan { return ferryPlan(t.ferry, p, homes, src.path, dst, false, nil) }},
		{key: "croc", name: "croc " + crocVersion + " --no-compress, via relay", size: size, check: holdsCopy(src.path, size),
			plan: func(dst string) plan { return crocPlan(t.croc, p, homes, false, src.path, dst) }},
		{key: "crocz", name: "croc " + crocVersion + " compressed (default), via relay", size: sizeZ, check: holdsCopy(src.pathZ, sizeZ),
			plan: func(dst string) plan { return crocPlan(t.croc, p, homes, true, src.pathZ, dst) }},
		{key: "plain2", name: "plain TCP copy (A'), the A/A", size: size, check: holdsCopy(src.path, size),
			plan: func(dst string) plan { return plainPlan(p, src.path, dst) }},
	}
	for _, r := range rows {
		if !strings.HasPrefix(r.key, "croc") {
			continue
		}
		switch {
		case t.crocErr != nil:
			r.skip = "croc cannot be had: " + t.crocErr.Error()
		case p.noCroc != "":
			r.skip = p.noCroc
		}
	}
	return rows
}

// diagRun is one more Ferry run with --diag, for its own account of
// where the time went, reported with its sender's verdict. It is not
// part of the figure's rows: the timers are on.
func diagRun(o options, t *tools, p *netPath, key, homes, work string, src pathSources) {
	var verdict string
	watch := func(line string) {
		var ev struct {
			Event, Verdict string
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "done" {
			verdict = ev.Verdict
		}
	}
	progress("%s: one Ferry run with --diag", key)
	dst, err := os.MkdirTemp(work, "dst-")
	if err != nil {
		return
	}
	rr := execute(ferryPlan(t.ferry, p, homes, src.path, dst, true, watch), src.size, o.timeout, work)
	cleanup(dst)
	if rr.Err != "" {
		verdict = "the run failed: " + rr.Err
	}
	say("\nOne more Ferry run with --diag (not in the figures above), its sender's verdict: %s (%.1f MiB/s).\n", verdict, rr.MiBps)
	current.Notes = append(current.Notes, "ferry --diag verdict: "+verdict)
}

// sizeLabel is a byte count as people read it.
func sizeLabel(n int64) string {
	if n%(1<<20) == 0 {
		return mib(int(n >> 20))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func mib(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%d GiB", n/1024)
	}
	return fmt.Sprintf("%d MiB", n)
}

// rowJSON is a row as the results file keeps it.
type rowJSON struct {
	Key       string                 `json:"key"`
	Name      string                 `json:"name"`
	Bytes     int64                  `json:"bytes"`
	Skipped   string                 `json:"skipped,omitempty"`
	MiBps     *seriesJSON            `json:"mib_per_s,omitempty"`
	VsCeiling *seriesJSON            `json:"vs_ceiling,omitempty"`
	VsCroc    *seriesJSON            `json:"vs_croc,omitempty"`
	CPUPerGiB map[string]*seriesJSON `json:"cpu_s_per_gib,omitempty"`
	RSSMiB    map[string]*seriesJSON `json:"peak_rss_mib,omitempty"`
	Failed    int                    `json:"failed"`
	Runs      []runResult            `json:"runs,omitempty"`
}

var roles = []string{"sender", "receiver", "relay"}

// perRun is a series of one number per run of r: of(run) for a run that
// succeeded, a failure otherwise. A row that never measured it (no relay,
// no time tool) gives an empty series.
func perRun(r *row, name string, of func(runResult) (float64, bool)) *benches.Series {
	s := &benches.Series{Name: name}
	any := false
	for _, rr := range r.runs {
		v, ok := of(rr)
		if ok {
			any = true
		}
		if rr.Err != "" || !ok {
			s.Add(0, fmt.Errorf("run %d: %s", rr.Round, rr.Err))
			continue
		}
		s.Add(v, nil)
	}
	if !any {
		return &benches.Series{Name: name}
	}
	return s
}

func cpuSeries(r *row, role string) *benches.Series {
	gib := float64(r.size) / (1 << 30)
	return perRun(r, r.name+", "+role, func(rr runResult) (float64, bool) {
		p, ok := rr.Procs[role]
		return p.CPU / gib, ok
	})
}

func rssSeries(r *row, role string) *benches.Series {
	return perRun(r, r.name+", "+role, func(rr runResult) (float64, bool) {
		p, ok := rr.Procs[role]
		return float64(p.RSSKiB) / 1024, ok && p.RSSKiB > 0
	})
}

// reportRows prints a file figure's rows: one table with every column the
// issue asks for, every run, the ratios with their runs, and the failures.
// ceiling, croc and aa name the rows the ratios are taken against.
func reportRows(rows []*row, ceiling, ceilingLabel, croc, aa string) {
	byKey := map[string]*row{}
	for _, r := range rows {
		byKey[r.key] = r
	}
	say("| row | size | MiB/s, median (min–max) | × ceiling | × croc | CPU s/GiB sender | CPU s/GiB receiver | CPU s/GiB relay | peak RSS MiB sender | peak RSS MiB receiver | peak RSS MiB relay | failed |\n")
	say("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var runRows []*benches.Series
	for _, r := range rows {
		if reportRow(r, byKey[ceiling], byKey[croc]) {
			runRows = append(runRows, r.mibps)
		}
	}
	say("\nEvery run, MiB/s, in the order taken:\n\n")
	printTable("run", "%.1f", runRows...)
	say("\nRatios, each run against the run of the other row in the same round:\n\n")
	printTable("ratio", "%.3f", rowRatios(byKey, ceiling, ceilingLabel, croc, aa)...)
	var failures []string
	for _, r := range rows {
		for _, rr := range r.runs {
			if rr.Err != "" {
				failures = append(failures, fmt.Sprintf("round %d, %s: %s", rr.Round, r.name, rr.Err))
			}
		}
	}
	if len(failures) > 0 {
		say("\nFailed runs (kept in every count above):\n\n")
		for _, f := range failures {
			say("- %s\n", mdEscape(f))
		}
	}
}

// rowRatio is b's runs against a's, round by round; empty if either row
// has no runs.
func rowRatio(name string, b, a *row) *benches.Series {
	if b == nil || a == nil || b.mibps == nil || a.mibps == nil {
		return &benches.Series{Name: name}
	}
	return benches.Ratio(name, b.mibps, a.mibps)
}

// reportRow prints r's line of the table against the ceiling and croc
// rows and keeps it in the report; measured is false for a row that was
// skipped or has no runs.
func reportRow(r, ceiling, croc *row) (measured bool) {
	j := &rowJSON{Key: r.key, Name: r.name, Bytes: r.size, Skipped: r.skip}
	current.Rows = append(current.Rows, j)
	if r.skip != "" || r.mibps == nil {
		say("| %s | %s | skipped: %s |  |  |  |  |  |  |  |  |  |\n", r.name, sizeLabel(r.size), mdEscape(r.skip))
		return false
	}
	vsCeil := rowRatio(r.name+" / ceiling", r, ceiling)
	vsCroc := rowRatio(r.name+" / croc", r, croc)
	ceilCell, crocCell := cell("%.3f", vsCeil), cell("%.3f", vsCroc)
	if ceiling != nil && r.key == ceiling.key {
		ceilCell = "1 (is the ceiling)"
	}
	if croc != nil && r.key == croc.key {
		crocCell = "1 (is croc)"
	}
	j.MiBps, j.VsCeiling, j.VsCroc = seriesOf(r.mibps), seriesOf(vsCeil), seriesOf(vsCroc)
	j.CPUPerGiB, j.RSSMiB = map[string]*seriesJSON{}, map[string]*seriesJSON{}
	j.Failed, j.Runs = r.mibps.Failed(), r.runs
	var cpu, rss []string
	for _, role := range roles {
		c, m := cpuSeries(r, role), rssSeries(r, role)
		cpu, rss = append(cpu, cell("%.2f", c)), append(rss, cell("%.1f", m))
		if len(c.Values) > 0 {
			j.CPUPerGiB[role] = seriesOf(c)
		}
		if len(m.Values) > 0 {
			j.RSSMiB[role] = seriesOf(m)
		}
	}
	say("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d of %d |\n",
		r.name, sizeLabel(r.size), cell("%.1f", r.mibps), ceilCell, crocCell,
		cpu[0], cpu[1], cpu[2], rss[0], rss[1], rss[2], r.mibps.Failed(), len(r.mibps.Values))
	return true
}

// rowRatios are the figure's ratios between rows, each run against the
// other row's run in the same round; a pair with a row missing or
// skipped is left out.
func rowRatios(byKey map[string]*row, ceiling, ceilingLabel, croc, aa string) []*benches.Series {
	var ratios []*benches.Series
	for _, pr := range []struct{ name, b, a string }{
		{"Ferry / " + ceilingLabel, "ferry", ceiling},
		{"Ferry / croc --no-compress", "ferry", croc},
		{"Ferry / croc compressed", "ferry", "crocz"},
		{"croc --no-compress / " + ceilingLabel, croc, ceiling},
		{"croc compressed / " + ceilingLabel, "crocz", ceiling},
		{"A/A: " + ceilingLabel + " (A') / " + ceilingLabel + " (A)", aa, ceiling},
	} {
		b, a := byKey[pr.b], byKey[pr.a]
		if b == nil || a == nil || b.skip != "" || a.skip != "" || b == a {
			continue
		}
		ratios = append(ratios, rowRatio(pr.name, b, a))
	}
	return ratios
}
