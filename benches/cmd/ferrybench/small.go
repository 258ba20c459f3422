package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/ferry-project/ferry/benches"
)

// smallSet is one folder the small figure sends: files of size bytes,
// 100 to a subfolder.
type smallSet struct {
	files int
	size  int64
}

func (s smallSet) String() string {
	size := fmt.Sprintf("%d KiB", s.size>>10)
	if s.size >= 1<<20 {
		size = fmt.Sprintf("%d MiB", s.size>>20)
	}
	return fmt.Sprintf("%s files of %s", groupThousands(s.files), size)
}

// smallSets are the folders of the small figure (issue 34): many files
// of 4 KiB, ten times as many, and a hundred of 1 MiB. -small-files sets
// the count of the second.
func smallSets(o options) []smallSet {
	return []smallSet{{1000, 4 << 10}, {o.small, 4 << 10}, {100, 1 << 20}}
}

// smallFigure: folders of many files with bin/ferry, against what a
// careful person would do by hand, tar over one plain TCP connection
// (with this program's pipe-send and pipe-recv as the two ends of the
// connection, since nc is not installed), in rounds of tar, Ferry
// (Ferry B with -ferry-b), tar again (the A/A). Each set runs on
// loopback and on the 1 Gbit/s veth, received onto the disk of -tmp
// and onto tmpfs (-small-tmpfs), where the disk's writeback cannot hide
// a cost per file. Beside the speeds, the cost per file of both ends:
// CPU from the timed runs, and file-system calls from one more run of
// each under strace, outside the clock.
func smallFigure(o options, t *tools) {
	if _, err := exec.LookPath("tar"); err != nil {
		skip("no tar: %v", err)
		return
	}
	for _, key := range []string{"loopback", "veth"} {
		p, remove, err := makePath(key)
		if err != nil {
			say("## Small files on %s\n\n", key)
			skip("%s", err)
			continue
		}
		undo := atExit(remove)
		for d, disk := range smallDisks(o) {
			for _, set := range smallSets(o) {
				// The calls per file depend on neither the path nor the
				// disk: counted once per set, on loopback, on the disk.
				smallRun(o, t, p, disk, set, key == "loopback" && d == 0)
			}
		}
		undo()
		remove()
	}
}

// smallDisk is where a small figure's folders are written and received.
type smallDisk struct {
	name, dir string
}

// smallDisks are the folders the small figure writes into: -tmp (the
// disk, as a person's download folder is) and -small-tmpfs, when it is
// a tmpfs.
func smallDisks(o options) []smallDisk {
	disks := []smallDisk{{"disk (" + o.tmp + ")", o.tmp}}
	var st syscall.Statfs_t
	if o.smallTmpfs != "" && o.smallTmpfs != "-" {
		const tmpfsMagic = 0x01021994
		if err := syscall.Statfs(o.smallTmpfs, &st); err == nil && st.Type == tmpfsMagic {
			disks = append(disks, smallDisk{"tmpfs (" + o.smallTmpfs + ")", o.smallTmpfs})
		} else {
			say("No tmpfs at %s: the small figure runs on the disk only.\n\n", o.smallTmpfs)
		}
	}
	return disks
}

func smallRun(o options, t *tools, p *netPath, disk smallDisk, set smallSet, count bool) {
	say("## %s (in %d folders), on %s, onto %s\n\n", set, (set.files+99)/100, p.title, disk.name)
	work, err := os.MkdirTemp(disk.dir, "ferrybench-small-")
	if err != nil {
		skip("cannot make a work folder: %v", err)
		return
	}
	defer os.RemoveAll(work)
	undoWork := atExit(func() { os.RemoveAll(work) })
	defer undoWork()
	b := &smallBench{o: o, t: t, p: p, set: set, work: work, src: filepath.Join(work, "src"), homes: filepath.Join(work, "homes")}
	progress("small: writing %s", set)
	if err := makeSmallTree(b.src, set.files, int(set.size)); err != nil {
		skip("cannot write the files: %v", err)
		return
	}
	total := int64(set.files) * set.size
	check := func(dst string) error {
		if n, got, err := dirStats(dst); err != nil || got != total || n != set.files {
			return fmt.Errorf("received %d files, %d bytes, of %d, %d (%v)", n, got, set.files, total, err)
		}
		return nil
	}
	plain := func(string) []string { return nil }
	rows := []*row{
		{key: "tar", name: "tar over plain TCP (A), the baseline", size: total, check: check, plan: b.tar(plain)},
		{key: "ferry", name: "Ferry (bin/ferry send/receive)", size: total, check: check, plan: b.ferry(t.ferry, plain)},
	}
	if o.ferryB != "" {
		rows = append(rows, &row{key: "ferryb", name: "Ferry B (-ferry-b)", size: total, check: check, plan: b.ferry(o.ferryB, plain)})
	}
	floor := &row{key: "floor", name: "floor: the mandated work alone (floor-send/recv)", size: total, check: check, plan: b.floor(true)}
	rows = append(rows,
		&row{key: "floorplain", name: "floor without hash or seal", size: total, check: check, plan: b.floor(false)},
		floor,
		&row{key: "tar2", name: "tar over plain TCP (A'), the A/A", size: total, check: check, plan: b.tar(plain)})
	rounds(o, work, rows)
	say("Path: %s. The tree (100 files a folder) is written and synced once; each run receives into a fresh folder, checked (file count and bytes), removed and synced outside the clock. The clock runs from starting the sender to both ends' exit. MiB/s of file content. %d rounds in the order of the rows.\n\n", p.about, o.pairs)
	reportRows(rows, "tar", "tar", "", "tar2")
	if o.ferryB != "" {
		say("\nFerry B against Ferry, each round's run against the other's:\n\n")
		printTable("ratio", "%.3f", rowRatio("Ferry B / Ferry", rows[2], rows[1]))
	}
	say("\nFerry against the floor (floor.go: what any program doing the mandated work pays), each round's run against the other's:\n\n")
	printTable("ratio", "%.3f", rowRatio("Ferry / floor", rows[1], floor))
	b.costs(rows, disk, count)
}

// smallBench is one folder of the small figure on one path and disk:
// what its plans and its cost table need.
type smallBench struct {
	o                options
	t                *tools
	p                *netPath
	set              smallSet
	work, src, homes string
}

// tar plans tar over a plain TCP connection into dst, each end's argv
// behind wrap(role) (nothing, or strace).
func (b *smallBench) tar(wrap func(role string) []string) func(dst string) plan {
	exe, p := self(), b.p
	return func(dst string) plan {
		return plan{
			before: []procSpec{{role: "receiver", ns: p.recvNS, ready: listening,
				argv: append(wrap("receiver"), "sh", "-c", `"$0" -child pipe-recv -listen "$2" | tar -C "$1" -xf -`, exe, dst, p.host)}},
			after: func(a []string) []procSpec {
				return []procSpec{{role: "sender", ns: p.sendNS,
					argv: append(wrap("sender"), "sh", "-c", `tar -C "$1" -cf - . | "$0" -child pipe-send -addr "$2"`, exe, b.src, net.JoinHostPort(p.host, a[0]))}}
			},
		}
	}
}

// floor plans this program's floor-recv and floor-send (floor.go), with
// or without the hash and the seal.
func (b *smallBench) floor(crypto bool) func(dst string) plan {
	exe, p := self(), b.p
	flag := fmt.Sprintf("-crypto=%t", crypto)
	return func(dst string) plan {
		return plan{
			before: []procSpec{{role: "receiver", ns: p.recvNS, ready: listening,
				argv: []string{exe, "-child", "floor-recv", flag, "-dir", dst, "-listen", p.host}}},
			after: func(a []string) []procSpec {
				return []procSpec{{role: "sender", ns: p.sendNS,
					argv: []string{exe, "-child", "floor-send", flag, "-addr", net.JoinHostPort(p.host, a[0]), "-path", b.src}}}
			},
		}
	}
}

// ferry plans exe's send and receive into dst, each end behind wrap.
func (b *smallBench) ferry(exe string, wrap func(role string) []string) func(dst string) plan {
	return func(dst string) plan {
		pl := ferryPlan(exe, b.p, b.homes, b.src, dst, false, nil)
		pl.before[0].argv = append(wrap("receiver"), pl.before[0].argv...)
		after := pl.after
		pl.after = func(a []string) []procSpec {
			specs := after(a)
			specs[0].argv = append(wrap("sender"), specs[0].argv...)
			return specs
		}
		return pl
	}
}

// costs says the cost per file of each row's two ends: CPU from the
// timed runs; file-system calls from one more run of each under strace
// (which slows it: never timed), when count is set.
func (b *smallBench) costs(rows []*row, disk smallDisk, count bool) {
	say("\nCost per file, both ends: CPU µs per file (median of the timed runs, min–max), and file-system calls per file (every call that names or holds a file or folder but the reads and writes of bytes, from one run under strace -f -c, outside the clock, on loopback onto the disk; a process's fixed calls, about 300 for Ferry and 200 for tar, are in it):\n\n")
	say("| row | CPU µs/file sender | CPU µs/file receiver | × tar receiver | fs calls/file sender | fs calls/file receiver |\n|---|---|---|---|---|---|\n")
	var tarRecv *benches.Series
	for _, r := range rows {
		if r.mibps == nil {
			continue
		}
		send, recv := b.perFile(r)
		vsTar := "1 (is tar)"
		if r.key == "tar" {
			tarRecv = recv
		} else if tarRecv != nil {
			vsTar = cell("%.2f", benches.Ratio(r.name+" / tar receiver CPU", recv, tarRecv))
		}
		calls := b.calls(r, count)
		say("| %s | %s | %s | %s | %s | %s |\n", r.name, cell("%.0f", send), cell("%.0f", recv), vsTar, calls[0], calls[1])
		if current != nil {
			current.Notes = append(current.Notes, fmt.Sprintf("%s, %s, %s: %s CPU µs/file sender %s, receiver %s; fs calls/file sender %s, receiver %s",
				b.set, b.p.key, disk.name, r.key, cell("%.0f", send), cell("%.0f", recv), calls[0], calls[1]))
		}
	}
	say("\n")
}

// perFile is r's CPU µs per file at each end, one sample a timed run.
func (b *smallBench) perFile(r *row) (send, recv *benches.Series) {
	send, recv = &benches.Series{Name: r.name + " sender CPU µs/file"}, &benches.Series{Name: r.name + " receiver CPU µs/file"}
	for _, rr := range r.runs {
		var err error
		if rr.Err != "" {
			err = fmt.Errorf("%s", rr.Err)
		}
		send.Add(rr.Procs["sender"].CPU*1e6/float64(b.set.files), err)
		recv.Add(rr.Procs["receiver"].CPU*1e6/float64(b.set.files), err)
	}
	return send, recv
}

// calls counts r's file-system calls per file at each end under strace
// (countRun), or says why not: counted once per set (count false
// points above), never for the A/A.
func (b *smallBench) calls(r *row, count bool) [2]string {
	switch {
	case !count:
		return [2]string{"(above)", "(above)"}
	case r.key == "tar2", r.key == "floor", r.key == "floorplain":
		return [2]string{"—", "—"}
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		return [2]string{"no strace", "no strace"}
	}
	out := map[string]string{"sender": filepath.Join(b.work, "sender.strace"), "receiver": filepath.Join(b.work, "receiver.strace")}
	wrap := func(role string) []string { return []string{strace, "-f", "-c", "-o", out[role]} }
	counted := map[string]func(string) plan{"tar": b.tar(wrap), "ferry": b.ferry(b.t.ferry, wrap), "ferryb": b.ferry(b.o.ferryB, wrap)}
	return countRun(b.o, b.work, r, b.set.files, counted[r.key], out)
}

// countRun runs r once more with both ends under strace -f -c (the
// plan made by counted, whose processes wrap writes to out) and returns
// each end's file-system calls per file.
func countRun(o options, work string, r *row, files int, counted func(dst string) plan, out map[string]string) [2]string {
	c := *r
	c.plan = counted
	if rr := runOnce(o, work, &c); rr.Err != "" {
		return [2]string{"FAIL", "FAIL"}
	}
	var res [2]string
	for i, role := range []string{"sender", "receiver"} {
		n, _, err := benches.FSCalls(out[role])
		if err != nil {
			res[i] = "FAIL"
			continue
		}
		res[i] = strconv.FormatFloat(float64(n)/float64(files), 'f', 2, 64)
	}
	return res
}

// makeSmallTree writes n files of size bytes under root, 100 to a
// folder, each different, and syncs them to disk.
func makeSmallTree(root string, n, size int) error {
	block := benches.Payload(size)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		binary.LittleEndian.PutUint64(block, uint64(i))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.bin", i)), block, 0o644); err != nil {
			return err
		}
	}
	syscall.Sync() // on disk before the first run
	return nil
}

// groupThousands writes n with a comma between thousands: 10,000.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
