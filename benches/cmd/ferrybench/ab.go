package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/ferry-project/ferry/benches"
)

// abFigure compares two builds of Ferry on the loopback file figure: the
// children of one run come from -ab-exe (A, the baseline build, for
// example a worktree at HEAD), the other's from this program (B), in
// rounds of A, B, A'. B against the A before it is the result, A' against
// A the noise. This is how a change to core/transfer is kept or rejected.
func abFigure(o options) {
	title := fmt.Sprintf("## 8. One %d MiB file, this build (B) against %s (A), loopback, two processes", o.fileMiB, o.abExe)
	if o.abExe == "" {
		fmt.Printf("## 8. Two builds: skipped, no -ab-exe given.\n")
		return
	}
	size := int64(o.fileMiB) << 20
	work, err := os.MkdirTemp(o.tmp, "ferrybench-ab-")
	if err != nil {
		fmt.Printf("%s\n\nCannot make a work folder: %v\n", title, err)
		return
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "big.bin")
	if err := makeBigFile(src, size); err != nil {
		fmt.Printf("%s\n\nCannot write the source file: %v\n", title, err)
		return
	}
	a := &benches.Series{Name: "Ferry, build A"}
	b := &benches.Series{Name: "Ferry, build B (this)"}
	a2 := &benches.Series{Name: "Ferry, build A again (A')"}
	build := func(s *benches.Series, exe string) kind {
		return kind{s,
			func(dst string) *exec.Cmd { return exec.Command(exe, "-child", "file-recv", "-dir", dst) },
			func(addr string) *exec.Cmd {
				return exec.Command(exe, "-child", "file-send", "-addr", addr, "-path", src)
			}}
	}
	runs, errs := rounds(o, work, size, holds(size), build(a, o.abExe), build(b, self()), build(a2, o.abExe))
	fmt.Printf("%s\n\n", title)
	fmt.Println("MiB/s, from starting the sender to both processes' exit:")
	fmt.Println()
	fmt.Print(benches.Table("run", "%.0f", a, b, a2))
	fmt.Println()
	fmt.Print(benches.Table("ratio", "%.3f",
		benches.Ratio("B / A", b, a),
		benches.Ratio("A/A: A' / A", a2, a)))
	for _, s := range []*benches.Series{a, b, a2} {
		printVerdicts("Verdicts, "+s.Name+":", verdicts(runs[s]))
	}
	printErrors(errs)
}
