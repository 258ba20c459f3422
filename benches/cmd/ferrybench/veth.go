package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/ferry-project/ferry/benches"
)

// The veth figure is the LAN a person has: the sender in one network
// namespace, the receiver in another, joined by a veth pair whose both
// ends are limited by tbf to 1 Gbit/s. The harness makes the namespaces
// itself, starts each child inside its own with ip netns exec, and
// removes them when the figure ends, fails or is interrupted. Nothing is
// connected to the machine's outer interface.

// A tbf at 1 Gbit/s; burst and latency as the lab script's own, except
// a burst of 256 KiB, which is about 2 ms at this rate.
var tbfArgs = []string{"tbf", "rate", "1gbit", "burst", "256kb", "latency", "50ms"}

type vethLab struct {
	a, b         string // namespaces: sender, receiver
	addrA, addrB string
	once         sync.Once
}

func vethAvailable() string {
	if os.Geteuid() != 0 {
		return "needs root to create network namespaces"
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "needs " + tool + " from iproute2"
		}
	}
	return ""
}

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %v: %v: %s", args, err, bytes.TrimSpace(out))
	}
	return nil
}

// newVethLab makes the two namespaces; on error, whatever it made is
// removed again.
func newVethLab() (*vethLab, error) {
	id := strconv.Itoa(os.Getpid() % 100000)
	l := &vethLab{a: "fbenchA" + id, b: "fbenchB" + id, addrA: "10.232.7.1", addrB: "10.232.7.2"}
	va, vb := "fba"+id, "fbb"+id // interface names: at most 15 bytes
	steps := [][]string{
		{"netns", "add", l.a},
		{"netns", "add", l.b},
		{"link", "add", va, "netns", l.a, "type", "veth", "peer", "name", vb, "netns", l.b},
		{"-n", l.a, "link", "set", "lo", "up"},
		{"-n", l.b, "link", "set", "lo", "up"},
		{"-n", l.a, "addr", "add", l.addrA + "/24", "dev", va},
		{"-n", l.b, "addr", "add", l.addrB + "/24", "dev", vb},
		{"-n", l.a, "link", "set", va, "up"},
		{"-n", l.b, "link", "set", vb, "up"},
	}
	for _, st := range steps {
		if err := ipCmd(st...); err != nil {
			l.remove()
			return nil, err
		}
	}
	for _, side := range []struct{ ns, dev string }{{l.a, va}, {l.b, vb}} {
		args := append([]string{"netns", "exec", side.ns, "tc", "qdisc", "add", "dev", side.dev, "root"}, tbfArgs...)
		if err := ipCmd(args...); err != nil {
			l.remove()
			return nil, err
		}
	}
	return l, nil
}

// remove deletes both namespaces (and with them the veth pair); it is
// safe to call more than once and from the signal handler.
func (l *vethLab) remove() {
	l.once.Do(func() {
		for _, ns := range []string{l.a, l.b} {
			if err := ipCmd("netns", "del", ns); err != nil && !bytes.Contains([]byte(err.Error()), []byte("No such file")) {
				fmt.Fprintf(os.Stderr, "ferrybench: removing namespace %s: %v\n", ns, err)
			}
		}
	})
}

// in returns a command running this program in role inside namespace ns.
func (l *vethLab) in(ns, role string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, self(), "-child", role}, args...)...)
}

// vethFigure: one file across the 1 Gbit/s veth, Ferry against the plain
// TCP copy, in rounds of plain, Ferry, plain, as the loopback file figure.
func vethFigure(o options) {
	title := fmt.Sprintf("## 7. One %d MiB file across a 1 Gbit/s link (veth between two network namespaces, tbf on both ends)", o.vethMiB)
	if why := vethAvailable(); why != "" {
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
	lab, err := newVethLab()
	if err != nil {
		fmt.Printf("%s\n\nCannot make the namespaces: %v\n", title, err)
		return
	}
	defer lab.remove()
	// An interrupted run removes them too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-sig:
			lab.remove()
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
			func(dst string) *exec.Cmd { return lab.in(lab.b, pair+"-recv", "-dir", dst, "-listen", lab.addrB) },
			func(addr string) *exec.Cmd { return lab.in(lab.a, pair+"-send", "-addr", addr, "-path", src) }}
	}
	runs, errs := rounds(o, work, size, holds(size),
		across(plainA, "plain"), across(ferry, "file"), across(plainB, "plain"))
	fmt.Printf("%s\n\n", title)
	fmt.Printf("tc qdisc ... %v; 1 Gbit/s is 119.2 MiB/s of IP packets.\n\n", tbfArgs)
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
