package netns

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
)

// Star is one hub namespace joined to each of several leaf namespaces by
// a veth pair of its own: one sender reaching several receivers, each on
// a link that can be shaped (or cut) alone. Leaf i's link is the /24
// 10.232.(i+1).0, the hub at .1 and the leaf at .2; the leaves reach only
// the hub. Like a Pair, nothing is connected to the machine's real
// interfaces.
type Star struct {
	Hub      string   // the hub namespace
	Leaves   []string // the leaf namespaces
	HubVeth  []string // per leaf: the hub's end of its link
	LeafVeth []string // per leaf: the leaf's end
	HubAddr  []net.IP // per leaf: the hub's address on its link
	LeafAddr []net.IP // per leaf: the leaf's address
}

// NewStar creates a star of n leaves whose names start with prefix (at
// most 4 bytes, so that interface names fit in 15) and registers its
// removal with t.Cleanup. It skips the test when this process is
// not root and fails it when namespaces cannot be made as root
// (SkipUnavailable).
func NewStar(t testing.TB, prefix string, n int) *Star {
	t.Helper()
	SkipUnavailable(t)
	if len(prefix) > 4 || n < 1 || n > 9 {
		t.Fatalf("netns.NewStar: prefix %q (at most 4 bytes), %d leaves (1 to 9)", prefix, n)
	}
	id := fmt.Sprintf("%d-%d", os.Getpid()%100000, counter.Add(1)%100)
	s := &Star{Hub: prefix + "H" + id}
	for i := range n {
		s.Leaves = append(s.Leaves, fmt.Sprintf("%sL%d%s", prefix, i, id))
		s.HubVeth = append(s.HubVeth, fmt.Sprintf("%sh%d%s", prefix, i, id))
		s.LeafVeth = append(s.LeafVeth, fmt.Sprintf("%sl%d%s", prefix, i, id))
		s.HubAddr = append(s.HubAddr, net.IPv4(10, 232, byte(i+1), 1).To4())
		s.LeafAddr = append(s.LeafAddr, net.IPv4(10, 232, byte(i+1), 2).To4())
	}
	t.Cleanup(func() {
		if err := s.Remove(); err != nil {
			t.Log(err)
		}
	})
	if err := s.setUp(); err != nil {
		t.Fatal(err)
	}
	return s
}

func ipRun(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %v: %v: %s", args, err, bytes.TrimSpace(out))
	}
	return nil
}

func (s *Star) setUp() error {
	if err := ipRun("netns", "add", s.Hub); err != nil {
		return err
	}
	if err := ipRun("-n", s.Hub, "link", "set", "lo", "up"); err != nil {
		return err
	}
	for i, leaf := range s.Leaves {
		if err := ipRun("netns", "add", leaf); err != nil {
			return err
		}
		if err := ipRun("link", "add", s.HubVeth[i], "netns", s.Hub, "type", "veth", "peer", "name", s.LeafVeth[i], "netns", leaf); err != nil {
			return err
		}
		for _, args := range [][]string{
			{"-n", leaf, "link", "set", "lo", "up"},
			{"-n", s.Hub, "addr", "add", s.HubAddr[i].String() + "/24", "dev", s.HubVeth[i]},
			{"-n", leaf, "addr", "add", s.LeafAddr[i].String() + "/24", "dev", s.LeafVeth[i]},
			{"-n", s.Hub, "link", "set", s.HubVeth[i], "up"},
			{"-n", leaf, "link", "set", s.LeafVeth[i], "up"},
		} {
			if err := ipRun(args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Remove deletes every namespace of the star (and with them the links).
// Removing what is already gone is not an error.
func (s *Star) Remove() error {
	var errs []error
	for _, ns := range append([]string{s.Hub}, s.Leaves...) {
		out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput()
		if err != nil && !bytes.Contains(out, []byte("No such file")) {
			errs = append(errs, fmt.Errorf("removing namespace %s: %v: %s", ns, err, bytes.TrimSpace(out)))
		}
	}
	return errors.Join(errs...)
}

// Command returns a command that runs name with args inside namespace ns
// (the hub or a leaf).
func (s *Star) Command(ns, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// Limit shapes both directions of leaf i's link to rate (tc syntax).
func (s *Star) Limit(i int, rate string) error {
	for _, side := range [][2]string{{s.Hub, s.HubVeth[i]}, {s.Leaves[i], s.LeafVeth[i]}} {
		args := []string{"-n", side[0], "qdisc", "replace", "dev", side[1], "root",
			"tbf", "rate", rate, "burst", "64kb", "latency", "50ms"}
		if out, err := exec.Command("tc", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("limiting %s in %s to %s: %v: %s", side[1], side[0], rate, err, bytes.TrimSpace(out))
		}
	}
	return nil
}
