package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
)

// star is a receiver's namespace R with several links, each a veth pair
// to a namespace of its own: the machine with several adapters (Wi-Fi,
// Hyper-V, VPN). core/testkit/netns only
// builds pairs, so this file builds the star with the same ip commands,
// and the same care: names carry the process id and a counter, DAD is
// off so link-local IPv6 is usable at once, and t.Cleanup removes
// everything.
type star struct {
	R     string
	links []starLink
	run   *netns.Pair // only its Start and Command, which take any namespace name
}

type starLink struct {
	NS           string // the browser side's namespace
	RDev, BDev   string // the link's interface in R and in NS
	RAddr, BAddr net.IP
}

var starCounter atomic.Uint32

// newStar makes R with n links; the i-th has 10.232.i.1 in R and
// 10.232.i.2 on the far side. With shared, every link's far side is in
// one namespace (two machines that share several networks); otherwise
// each has its own. multicastOff lists links whose R end gets "multicast
// off".
func newStar(t *testing.T, n int, shared bool, multicastOff ...int) *star {
	t.Helper()
	netns.SkipUnavailable(t)
	id := fmt.Sprintf("%d-%d", os.Getpid()%100000, starCounter.Add(1)%1000)
	s := &star{R: "fstarR" + id, run: &netns.Pair{}}
	var made []string
	t.Cleanup(func() {
		for _, ns := range made {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Logf("removing namespace %s: %v: %s", ns, err, out)
			}
		}
	})
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, bytes.TrimSpace(out))
		}
	}
	noDAD := func(ns, dev string) {
		t.Helper()
		f := "/proc/sys/net/ipv6/conf/" + dev + "/accept_dad"
		if out, err := s.run.Command(ns, "sh", "-c", "[ ! -e "+f+" ] || echo 0 > "+f).CombinedOutput(); err != nil {
			t.Fatalf("disabling DAD on %s: %v: %s", dev, err, out)
		}
	}
	ip("netns", "add", s.R)
	made = append(made, s.R)
	ip("-n", s.R, "link", "set", "lo", "up")
	for i := 1; i <= n; i++ {
		l := starLink{
			NS:    fmt.Sprintf("fstar%d-%s", i, id),
			RDev:  fmt.Sprintf("fsr%d-%s", i, id),
			BDev:  fmt.Sprintf("fsb%d-%s", i, id),
			RAddr: net.IPv4(10, 232, byte(i), 1).To4(),
			BAddr: net.IPv4(10, 232, byte(i), 2).To4(),
		}
		if shared {
			l.NS = "fstarB-" + id
		}
		if !slices.Contains(made, l.NS) {
			ip("netns", "add", l.NS)
			made = append(made, l.NS)
			ip("-n", l.NS, "link", "set", "lo", "up")
		}
		ip("link", "add", l.RDev, "netns", s.R, "type", "veth", "peer", "name", l.BDev, "netns", l.NS)
		for _, side := range []struct {
			ns, dev string
			addr    net.IP
		}{{s.R, l.RDev, l.RAddr}, {l.NS, l.BDev, l.BAddr}} {
			noDAD(side.ns, side.dev)
			ip("-n", side.ns, "addr", "add", side.addr.String()+"/24", "dev", side.dev)
			ip("-n", side.ns, "link", "set", side.dev, "up", "multicast", "on")
		}
		for _, off := range multicastOff {
			if off == i {
				ip("-n", s.R, "link", "set", l.RDev, "multicast", "off")
			}
		}
		s.links = append(s.links, l)
	}
	// The kernel gives a link its IPv6 link-local address shortly after
	// both ends are up, from a work queue; links open only the families
	// whose address exists when they start, so wait for them here.
	for _, l := range s.links {
		for _, side := range [][2]string{{s.R, l.RDev}, {l.NS, l.BDev}} {
			deadline := time.Now().Add(guard)
			for {
				out, err := exec.Command("ip", "-n", side[0], "-6", "addr", "show", "dev", side[1], "scope", "link").Output()
				if err == nil && bytes.Contains(out, []byte("inet6 fe80")) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s in %s has no IPv6 link-local address: %v: %s", side[1], side[0], err, out)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	return s
}

// start runs a helper (see TestMain) in namespace ns.
func (s *star) start(t *testing.T, ns string, args ...string) proc {
	t.Helper()
	return proc{s.run.Start(t, ns, []string{helperEnv + "=" + strings.Join(args, " ")}, os.Args[0])}
}

// TestMDNSEveryInterface: a receiver with three adapters, the third
// refusing multicast ("multicast off", as Windows flags an adapter with
// IP_ADAPTER_NO_MULTICAST). The link without multicast is reported once
// and skipped, by the advertiser and by a Find in R; neither fails. A
// Find beyond each working link finds the receiver and dials it through
// that link; the address of the link without multicast is not offered.
func TestMDNSEveryInterface(t *testing.T) {
	s := newStar(t, 3, false, 3)
	good, off := s.links[:2], s.links[2]
	adv := s.start(t, s.R, "advertise-all")
	var skips []string
	for {
		line := adv.next(t, "advertiser ready")
		if rest, ok := strings.CutPrefix(line, "skip "); ok {
			skips = append(skips, rest)
			continue
		}
		if strings.HasPrefix(line, "ready ") {
			break
		}
	}
	if len(skips) != 1 || !strings.HasPrefix(skips[0], off.RDev+": ") || !strings.Contains(skips[0], "multicast is off") {
		t.Errorf("advertiser reported skipping %q, want %s once, multicast off", skips, off.RDev)
	}

	find := func(ns string) findResult {
		t.Helper()
		f := s.start(t, ns, "find", "30000", "K7QX")
		line := f.next(t, "find result in "+ns)
		f.stop(t)
		var res findResult
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("find in %s said %q", ns, line)
		}
		return res
	}
	for _, l := range good {
		res := find(l.NS)
		if res.Error != "" || res.Greeting != "ferry\n" || !slices.ContainsFunc(res.Peer.Addrs, l.RAddr.Equal) {
			t.Errorf("find beyond %s: %+v, want the receiver at %v, dialled", l.RDev, res, l.RAddr)
		}
		if slices.ContainsFunc(res.Peer.Addrs, off.RAddr.Equal) {
			t.Errorf("find beyond %s lists %v, the address of the link without multicast", l.RDev, off.RAddr)
		}
		if len(res.Skipped) != 0 {
			t.Errorf("find beyond %s skipped %q", l.RDev, res.Skipped)
		}
	}
	res := find(s.R)
	if res.Error != "" || res.Greeting != "ferry\n" {
		t.Errorf("find in R, beside the link without multicast: %+v", res)
	}
	if len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], off.RDev+": ") {
		t.Errorf("find in R reported skipping %q, want %s once", res.Skipped, off.RDev)
	}
	adv.stop(t)
}

// TestMDNSBrowserOnTwoLinks: two machines that share two networks, two
// veth pairs between two namespaces. The browser lists the receiver
// once, with both addresses.
func TestMDNSBrowserOnTwoLinks(t *testing.T) {
	s := newStar(t, 2, true)
	b := s.links[0].NS
	browser := s.start(t, b, "browse", "all", "0")
	s.start(t, s.R, "advertise-all").next(t, "advertiser ready")
	browser.waitList(t, "the receiver with both addresses", func(p []Peer) bool {
		if len(p) > 1 {
			t.Fatalf("browse listed %d peers, want one: %+v", len(p), p)
		}
		return len(p) == 1 && slices.ContainsFunc(p[0].Addrs, s.links[0].RAddr.Equal) &&
			slices.ContainsFunc(p[0].Addrs, s.links[1].RAddr.Equal)
	})
	browser.stop(t)
}

// TestMDNSTentativeIPv6: a receiver started in a fresh network, while its
// interface's IPv6 link-local address is still tentative (duplicate
// address detection), reports nothing and is found with that address: an
// interface is left out only when it cannot carry mDNS. (Ferry's own
// mDNS used to report "IPv6: sending to [ff02::fb]:5353: cannot assign
// requested address" and leave the interface out.)
func TestMDNSTentativeIPv6(t *testing.T) {
	pair := netns.NewPair(t)
	conf := "/proc/sys/net/ipv6/conf/" + pair.VethA + "/"
	// DAD on, three probes a second apart: tentative for about 3 s.
	if out, err := pair.Command(pair.A, "sh", "-c", "echo 1 > "+conf+"accept_dad && echo 3 > "+conf+"dad_transmits && "+
		"ip link set "+pair.VethA+" down && ip link set "+pair.VethA+" up").CombinedOutput(); err != nil {
		t.Fatalf("restarting %s with DAD: %v: %s", pair.VethA, err, out)
	}
	deadline := time.Now().Add(guard)
	for {
		out, err := exec.Command("ip", "-n", pair.A, "-6", "addr", "show", "dev", pair.VethA, "tentative").Output()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte("inet6 fe80")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never had a tentative link-local address", pair.VethA)
		}
		time.Sleep(10 * time.Millisecond) // the kernel adds it from a work queue
	}
	adv := startHelper(t, pair, pair.A, "advertise-all")
	for {
		line := adv.next(t, "advertiser ready")
		if rest, ok := strings.CutPrefix(line, "skip "); ok {
			t.Errorf("advertiser skipped %s", rest)
			continue
		}
		if strings.HasPrefix(line, "ready ") {
			break
		}
	}
	if out, _ := exec.Command("ip", "-n", pair.A, "-6", "addr", "show", "dev", pair.VethA, "tentative").Output(); !bytes.Contains(out, []byte("inet6 fe80")) {
		t.Log("the address finished DAD before the advertiser was up; the test shows less than it should")
	}
	browser := startHelper(t, pair, pair.B, "browse", pair.VethB, "0")
	browser.waitList(t, "the receiver with its IPv6 link-local address", func(p []Peer) bool {
		return len(p) == 1 && slices.ContainsFunc(p[0].Addrs, func(ip net.IP) bool { return ip.To4() == nil && ip.IsLinkLocalUnicast() })
	})
	browser.stop(t)
	adv.stop(t)
}
