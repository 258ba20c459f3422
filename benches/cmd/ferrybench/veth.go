package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/ferry-project/ferry/benches"
	"github.com/ferry-project/ferry/tests/netns"
)

// The veth figure is the LAN a person has: the sender in one network
// namespace, the receiver in another, joined by a veth pair whose both
// ends are limited by tbf to 1 Gbit/s. The harness makes the namespaces
// itself, starts each child inside its own with ip netns exec, and
// removes them when the figure ends, fails or is interrupted. Nothing is
// connected to the machine's outer interface.

// linkRate is the figure's link: tests/netns shapes it with tbf (burst
// 256 KiB, about 2 ms at this rate; latency 50 ms).
const linkRate = "1gbit"

// inNS returns a command running this program in role inside namespace ns.
func inNS(ns, role string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, self(), "-child", role}, args...)...)
}

// vethFigure: one file across the 1 Gbit/s veth, Ferry against the plain
// TCP copy, in rounds of plain, Ferry, plain, as the loopback file figure.
func vethFigure(o options) {
	title := fmt.Sprintf("## 7. One %d MiB file across a 1 Gbit/s link (veth between two network namespaces, tbf on both ends)", o.vethMiB)
	if ok, why := netns.Available(); !ok {
		fmt.Printf("%s\n\nSkipped: %s.\n", title, why)
		return
	}
	size := int64(o.vethMiB) << 20
	work, err := os.MkdirTemp(o.tmp, "ferrybench-veth-")
	if err != nil {
		fmt.Printf("%s\n\nCannot make a work folder: %v\n", title, err)
		return
	}
	defer os.RemoveAll(work)
	lab, err := netns.Create()
	if err == nil {
		if err = lab.Limit(linkRate); err != nil {
			lab.Remove()
		}
	}
	if err != nil {
		fmt.Printf("%s\n\nCannot make the namespaces: %v\n", title, err)
		return
	}
	defer lab.Remove()
	// An interrupted run removes them too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-sig:
			lab.Remove()
			os.RemoveAll(work)
			os.Exit(130)
		case <-stopped:
		}
	}()
	src := filepath.Join(work, "big.bin")
	if err := makeBigFile(src, size); err != nil {
		fmt.Printf("%s\n\nCannot write the source file: %v\n", title, err)
		return
	}
	plainA := &benches.Series{Name: "plain TCP copy (A)"}
	plainB := &benches.Series{Name: "plain TCP copy (A')"}
	ferry := &benches.Series{Name: "Ferry (AES-256-GCM, BLAKE3 both ends)"}
	// As childKind, with the receiver in B and the sender in A.
	across := func(s *benches.Series, pair string) kind {
		return kind{s,
			func(dst string) *exec.Cmd {
				return inNS(lab.B, pair+"-recv", "-dir", dst, "-listen", lab.AddrB.String())
			},
			func(addr string) *exec.Cmd { return inNS(lab.A, pair+"-send", "-addr", addr, "-path", src) }}
	}
	runs, errs := rounds(o, work, size, holds(size),
		across(plainA, "plain"), across(ferry, "file"), across(plainB, "plain"))
	fmt.Printf("%s\n\n", title)
	fmt.Printf("tc qdisc ... tbf rate %s burst 256kb latency 50ms on both ends; 1 Gbit/s is 119.2 MiB/s of IP packets.\n\n", linkRate)
	fmt.Println("MiB/s of file content, from starting the sender to both processes' exit:")
	fmt.Println()
	fmt.Print(benches.Table("run", "%.1f", plainA, ferry, plainB))
	fmt.Println()
	fmt.Print(benches.Table("ratio", "%.3f",
		benches.Ratio("Ferry / plain TCP copy (A)", ferry, plainA),
		benches.Ratio("A/A: plain (A') / plain (A)", plainB, plainA)))
	printVerdicts("Ferry's own verdict (core/diag), per run:", verdicts(runs[ferry]))
	printErrors(errs)
}
