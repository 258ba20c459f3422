// Package netns gives tests a private two-host network: two Linux network
// namespaces joined by a veth pair, with addresses, loopback and multicast
// up, and nothing connected to the machine's real interfaces. Traffic sent
// inside a Pair, mDNS multicast included, never leaves it.
//
// A Pair is created by NewPair and removed by t.Cleanup, also when the test
// fails or calls FailNow. Names carry the process id and a counter, so
// tests running in parallel, or in several test binaries at once, never
// collide. Go code runs inside a namespace as a separate process started
// with Command (ip netns exec): setns on one OS thread is not enough for
// libraries that start goroutines of their own.
//
// Creating namespaces needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and the
// ip tool from iproute2; Available says whether both are present and, if
// not, why, so a test can skip with that reason.
package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
)

// Pair is two network namespaces, A and B, joined by one veth link.
type Pair struct {
	A, B         string // namespace names, for ip netns exec and Command
	VethA, VethB string // the link's interface name inside A and inside B
	AddrA, AddrB net.IP // IPv4 address of VethA and VethB, in one /24
}

var counter atomic.Uint32

var availability = sync.OnceValues(probe)

// Available reports whether this process can create network namespaces,
// and if it cannot, why not, in words fit for t.Skip.
func Available() (ok bool, why string) { return availability() }

// SkipUnavailable skips t when namespaces cannot be made because this
// process is not root, and fails it when they cannot be made as root:
// CI is root, and there a missing ip tool or a refused namespace is a
// broken machine, not a pass.
func SkipUnavailable(t testing.TB) {
	t.Helper()
	ok, why := Available()
	switch {
	case ok:
	case os.Geteuid() != 0:
		t.Skip("not root: " + why)
	default:
		t.Fatal(why)
	}
}

func probe() (bool, string) {
	if os.Geteuid() != 0 {
		return false, "needs root to create network namespaces (CI runs as root)"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false, "needs the ip tool from iproute2 (tests/install-deps.sh installs it)"
	}
	name := fmt.Sprintf("fprobe%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		return false, fmt.Sprintf("cannot create a network namespace: %v: %s", err, bytes.TrimSpace(out))
	}
	_ = exec.Command("ip", "netns", "del", name).Run()
	return true, ""
}

// NewPair creates two namespaces joined by a veth pair with AddrA and AddrB
// on it, brings up loopback and the link with multicast on, and registers
// their removal with t.Cleanup. It skips the test when this process is
// not root and fails it when namespaces cannot be made as root
// (SkipUnavailable).
func NewPair(t testing.TB) *Pair {
	t.Helper()
	SkipUnavailable(t)
	p, err := Create()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Remove(); err != nil {
			t.Log(err)
		}
	})
	return p
}

// Create is NewPair for programs that are not tests (the benchmark
// harness): it returns an error instead of failing a test, and the caller
// removes the pair with Remove. On error, whatever it made is removed.
func Create() (*Pair, error) {
	n := counter.Add(1)
	// Interface names max out at 15 bytes: "fva" + 5 + "-" + up to 6.
	id := fmt.Sprintf("%d-%d", os.Getpid()%100000, n%1000000)
	p := &Pair{
		A:     "ferryA" + id,
		B:     "ferryB" + id,
		VethA: "fva" + id,
		VethB: "fvb" + id,
		AddrA: net.IPv4(10, 231, 1, 1).To4(),
		AddrB: net.IPv4(10, 231, 1, 2).To4(),
	}
	if err := p.setUp(); err != nil {
		p.Remove()
		return nil, err
	}
	return p, nil
}

func (p *Pair) setUp() error {
	run := func(args ...string) error {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %v: %v: %s", args, err, bytes.TrimSpace(out))
		}
		return nil
	}
	if err := run("netns", "add", p.A); err != nil {
		return err
	}
	if err := run("netns", "add", p.B); err != nil {
		return err
	}
	if err := run("link", "add", p.VethA, "netns", p.A, "type", "veth", "peer", "name", p.VethB, "netns", p.B); err != nil {
		return err
	}
	for _, side := range []struct {
		ns, dev string
		addr    net.IP
	}{{p.A, p.VethA, p.AddrA}, {p.B, p.VethB, p.AddrB}} {
		// No duplicate address detection: the link-local IPv6 address is
		// usable as soon as the link is up, instead of tentative for a
		// second or two, so tests need not wait for it.
		dad := "/proc/sys/net/ipv6/conf/" + side.dev + "/accept_dad"
		if out, err := p.Command(side.ns, "sh", "-c", "[ ! -e "+dad+" ] || echo 0 > "+dad).CombinedOutput(); err != nil {
			return fmt.Errorf("disabling DAD on %s: %v: %s", side.dev, err, bytes.TrimSpace(out))
		}
		for _, args := range [][]string{
			{"-n", side.ns, "link", "set", "lo", "up"},
			{"-n", side.ns, "addr", "add", side.addr.String() + "/24", "dev", side.dev},
			{"-n", side.ns, "link", "set", side.dev, "up", "multicast", "on"},
		} {
			if err := run(args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Remove deletes both namespaces; deleting a namespace destroys the veth
// end inside it, and with it the other end. Removing what is already gone
// is not an error, so Remove may be called more than once.
func (p *Pair) Remove() error {
	var errs []error
	for _, ns := range []string{p.A, p.B} {
		out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput()
		if err != nil && !bytes.Contains(out, []byte("No such file")) {
			errs = append(errs, fmt.Errorf("removing namespace %s: %v: %s", ns, err, bytes.TrimSpace(out)))
		}
	}
	return errors.Join(errs...)
}

// Command returns a command that runs name with args inside namespace ns
// (p.A or p.B). The caller starts it and waits for it.
func (p *Pair) Command(ns, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// CommandContext is Command with a context that kills the process when done.
func (p *Pair) CommandContext(ctx context.Context, ns, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// Limit shapes both directions of the link to rate (tc syntax, like
// "1gbit" or "100mbit") with a token bucket filter. The kernel here has no
// netem, so there is no way to add delay or loss.
func (p *Pair) Limit(rate string) error {
	for _, side := range [][2]string{{p.A, p.VethA}, {p.B, p.VethB}} {
		args := []string{"-n", side[0], "qdisc", "replace", "dev", side[1], "root",
			"tbf", "rate", rate, "burst", "256kb", "latency", "50ms"}
		if out, err := exec.Command("tc", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("limiting %s in %s to %s: %v: %s", side[1], side[0], rate, err, bytes.TrimSpace(out))
		}
	}
	return nil
}
