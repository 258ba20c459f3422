package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
)

// abFigure compares two builds of core/transfer on the loopback file
// figure, without the CLI: the children of one run come from -ab-exe (A,
// the baseline build, for example a worktree at HEAD), the other's from
// this program (B), in rounds of A, B, A'. B against the A before it is
// the result, A' against A the noise. This is how a change to
// core/transfer is kept or rejected.
func abFigure(o options) {
	say("## One %s file, this build (B) against %s (A), on loopback, core/transfer without the CLI\n\n", mib(o.fileMiB), o.abExe)
	if o.abExe == "" {
		skip("no -ab-exe given")
		return
	}
	size := int64(o.fileMiB) << 20
	work, err := os.MkdirTemp(o.tmp, "ferrybench-ab-")
	if err != nil {
		skip("cannot make a work folder: %v", err)
		return
	}
	defer os.RemoveAll(work)
	undo := atExit(func() { os.RemoveAll(work) })
	defer undo()
	src := filepath.Join(work, "big.bin")
	if err := makeBigFile(src, size); err != nil {
		skip("cannot write the source file: %v", err)
		return
	}
	verdicts := map[string][]string{}
	build := func(key, name, exe string) *row {
		return &row{key: key, name: name, size: size, check: holdsCopy(src, size),
			plan: func(dst string) plan {
				return plan{
					before: []procSpec{{role: "receiver", ready: listening,
						argv: []string{exe, "-child", "file-recv", "-dir", dst}}},
					after: func(a []string) []procSpec {
						return []procSpec{{role: "sender", watch: func(line string) {
							var rep childReport
							if json.Unmarshal([]byte(line), &rep) == nil && rep.Verdict != "" {
								verdicts[key] = append(verdicts[key], rep.Verdict)
							}
						}, argv: []string{exe, "-child", "file-send", "-addr", net.JoinHostPort("127.0.0.1", a[0]), "-path", src}}}
					},
				}
			}}
	}
	rows := []*row{build("a", "build A", o.abExe), build("ferry", "build B (this)", self()), build("a2", "build A again (A')", o.abExe)}
	rounds(o, work, rows)
	say("Path: lo of the host's namespace. Rounds of A, B, A'; the clock runs from starting the sender to both processes' exit.\n\n")
	reportRows(rows, "a", "build A", "", "a2")
	for _, r := range rows {
		if len(verdicts[r.key]) == 0 {
			continue
		}
		say("\nVerdicts (core/diag), %s:\n\n", r.name)
		for i, v := range verdicts[r.key] {
			say("- %d: %s\n", i+1, mdEscape(v))
		}
	}
}
