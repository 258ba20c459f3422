package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/ferry-project/ferry/benches"
)

// inNetns is set in the environment of the copy of browserbench that
// reexec starts inside its own network namespace.
const inNetns = "FERRY_BROWSERBENCH_NETNS"

// reexec runs this browserbench again, with the same flags, in a new
// network namespace (unshare -n), whose only device is its own lo: the
// page, its peer and the native baseline all talk over it, on an
// address that is not 127.0.0.0/8, so that Chromium gives the page no
// secure context, as on a phone; nothing can leave the machine. Root
// only (a network namespace and tc).
func reexec() int {
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "browserbench: -lan needs root (a network namespace of its own); run as root, or with -lan '' -rates 0 on loopback")
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "browserbench: %v\n", err)
		return 2
	}
	cmd := exec.Command("unshare", append([]string{"-n", self}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), inNetns+"=1")
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "browserbench: %v\n", err)
		return 2
	}
	return 0
}

// setupNetns brings this namespace's lo up with addr on it.
func setupNetns(addr string) error {
	if err := ip("link", "set", "lo", "up"); err != nil {
		return err
	}
	return ip("addr", "add", addr+"/32", "dev", "lo")
}

func ip(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// host is the address everything listens on and the page is opened at.
func host() string {
	if *lan != "" {
		return *lan
	}
	return "127.0.0.1"
}

// path is one way of shaping the namespace's lo and the results
// measured through it.
type path struct {
	name, rate      string
	native, nativeB *benches.Series
	pages           []*pageRuns
	mems, splits    []string
}

// pageRuns are the runs of one build's page.
type pageRuns struct {
	label, bin                   string // label "" is bin/ferry's own page
	send, recvStream, recvMemory *benches.Series
}

// builds are bin/ferry and the -pages builds, as label and binary.
func builds() [][2]string {
	b := [][2]string{{"", *ferry}}
	for _, kv := range strings.Split(*pages, ",") {
		if l, p, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			b = append(b, [2]string{" (" + l + ")", p})
		}
	}
	return b
}

func newPath(rate string) *path {
	name := "the path as it is (unshaped)"
	if rate != "0" && rate != "" {
		name = "lo shaped to " + rate + " (tc tbf)"
	} else {
		rate = ""
	}
	p := &path{name: name, rate: rate,
		native:  &benches.Series{Name: "bin/ferry → bin/ferry, MiB/s"},
		nativeB: &benches.Series{Name: "bin/ferry → bin/ferry again (A/A), MiB/s"},
	}
	for _, b := range builds() {
		l := b[0]
		p.pages = append(p.pages, &pageRuns{label: l, bin: b[1],
			send:       &benches.Series{Name: "page" + l + " → ferry receive --web, MiB/s"},
			recvStream: &benches.Series{Name: "ferry send --to-browser → page" + l + " (stream), MiB/s"},
			recvMemory: &benches.Series{Name: "ferry send --to-browser → page" + l + " (memory), MiB/s"},
		})
	}
	return p
}

// shape puts the path's rate on lo (a token bucket: tc has tbf here,
// not netem), or takes any rate off. Both directions of every
// connection on lo share it.
func (p *path) shape() error {
	if *lan == "" {
		if p.rate != "" {
			return fmt.Errorf("-rates %s needs -lan (a namespace whose lo may be shaped)", p.rate)
		}
		return nil
	}
	exec.Command("tc", "qdisc", "del", "dev", "lo", "root").Run() // none yet is fine
	if p.rate == "" {
		return nil
	}
	out, err := exec.Command("tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", p.rate,
		"burst", "256kb", "latency", "50ms").CombinedOutput()
	if err != nil {
		return fmt.Errorf("tc tbf %s on lo: %v: %s", p.rate, err, out)
	}
	return nil
}
