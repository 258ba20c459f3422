package main

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
)

// smallFigure: many small files with bin/ferry, against what a careful
// person would do by hand, tar over one plain TCP connection (with this
// program's pipe-send and pipe-recv as the two ends of the connection,
// since nc is not installed), in rounds of tar, Ferry, tar. It runs on
// the loopback path, inside its namespace when there is one.
func smallFigure(o options, t *tools) {
	say("## %d files of 4 KiB (in %d folders), on loopback\n\n", o.small, (o.small+99)/100)
	if _, err := exec.LookPath("tar"); err != nil {
		skip("no tar: %v", err)
		return
	}
	p, work, done, ok := pathWithWork(o, "loopback", "ferrybench-small-")
	if !ok {
		return
	}
	defer done()
	src := filepath.Join(work, "src")
	progress("small: writing %d files", o.small)
	if err := makeSmallTree(src, o.small); err != nil {
		skip("cannot write the files: %v", err)
		return
	}
	total := int64(o.small) * 4096
	homes := filepath.Join(work, "homes")
	check := func(dst string) error {
		if n, got, err := dirStats(dst); err != nil || got != total || n != o.small {
			return fmt.Errorf("received %d files, %d bytes, of %d, %d (%v)", n, got, o.small, total, err)
		}
		return nil
	}
	exe := self()
	tar := func(dst string) plan {
		return plan{
			before: []procSpec{{role: "receiver", ns: p.recvNS, ready: listening,
				argv: []string{"sh", "-c", `"$0" -child pipe-recv -listen "$2" | tar -C "$1" -xf -`, exe, dst, p.host}}},
			after: func(a []string) []procSpec {
				return []procSpec{{role: "sender", ns: p.sendNS,
					argv: []string{"sh", "-c", `tar -C "$1" -cf - . | "$0" -child pipe-send -addr "$2"`, exe, src, net.JoinHostPort(p.host, a[0])}}}
			},
		}
	}
	rows := []*row{
		{key: "tar", name: "tar over plain TCP (A), the baseline", size: total, check: check, plan: tar},
		{key: "ferry", name: "Ferry (bin/ferry send/receive)", size: total, check: check,
			plan: func(dst string) plan { return ferryPlan(t.ferry, p, homes, src, dst, false, nil) }},
		{key: "tar2", name: "tar over plain TCP (A'), the A/A", size: total, check: check, plan: tar},
	}
	rounds(o, work, rows)
	say("Path: %s. The tree (100 files a folder) is written and synced once; each run receives into a fresh folder, checked (file count and bytes), removed and synced outside the clock. The clock runs from starting the sender to both ends' exit. MiB/s of file content. %d rounds in the order of the rows.\n\n", p.about, o.pairs)
	reportRows(rows, "tar", "tar", "", "tar2")
}
