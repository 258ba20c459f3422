package discovery

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
)

// These tests run real mDNS, zeroconf's, over veth pairs between network
// namespaces: the advertiser in A, the browser in B, each a copy of this
// test binary started by ip netns exec (zeroconf runs goroutines on many
// threads, so setns on one thread would not do). Nothing reaches the
// machine's own interfaces.

const helperEnv = "FERRY_DISCOVERY_HELPER"

const (
	testName = "Zoë's laptop"
	testFP   = "K7QX-M2PA-9RTE-WD4C"
)

// TestMain runs, instead of the tests, the body of the processes the
// tests start; in a normal run it just runs the tests. The helper's
// arguments come in the environment:
//
//	advertise IFACE        listen on TCP, advertise, greet each connection
//	                       with "ferry"; Close on stdin EOF
//	browse IFACE ROUND     print each OnChange list as a JSON line until
//	                       stdin EOF; ROUND (ms) overrides roundLength
//	                       unless 0; IFACE "all" browses on every interface
//	advertise-all          as advertise, on every interface, printing
//	                       "skip IFACE: ERR" for each one OnSkip reports
//	find MS QUERY          Find on all interfaces for at most MS, Dial,
//	                       print the peer and the greeting, or the error,
//	                       and the interfaces skipped, as JSON
//	families IFACE         guard_test.go's: zeroconf's Resolver on IFACE
//	                       alone, then one round of Browse's, as JSON
//	longhost IFACE ADDR    guard_test.go's: a zeroconf Server with a host
//	                       label too long to pack, shut down
//	nsec-bare              guard_test.go's: python's answer unpacked with
//	                       miekg/dns's own NSEC type; prints the error
func TestMain(m *testing.M) {
	if args := strings.Fields(os.Getenv(helperEnv)); len(args) > 0 {
		if err := helper(args); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(args []string) error {
	stdinClosed := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	switch args[0] {
	case "advertise", "advertise-all":
		ln, err := net.Listen("tcp", ":0")
		if err != nil {
			return err
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				io.WriteString(c, "ferry\n")
				c.Close()
			}
		}()
		port := ln.Addr().(*net.TCPAddr).Port
		cfg := AdvertiseConfig{Name: testName, Fingerprint: testFP, Port: port, Ifaces: args[1:]}
		if args[0] == "advertise-all" {
			cfg.Ifaces = nil
			cfg.OnSkip = func(iface string, err error) { fmt.Printf("skip %s: %v\n", iface, err) }
		}
		a, err := Advertise(cfg)
		if err != nil {
			return err
		}
		fmt.Printf("ready %d\n", port)
		<-stdinClosed
		a.Close()
		return nil
	case "browse":
		round, _ := strconv.Atoi(args[2])
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-stdinClosed; cancel() }()
		ifaces := args[1:2]
		if ifaces[0] == "all" {
			ifaces = nil
		}
		return Browse(ctx, BrowseConfig{Ifaces: ifaces, round: time.Duration(round) * time.Millisecond,
			OnChange: func(p []Peer) {
				b, _ := json.Marshal(p)
				fmt.Printf("%s\n", b)
			}})
	case "families":
		return families(args[1])
	case "longhost":
		return longHost(args[1], args[2])
	case "nsec-bare":
		return nsecBare()
	case "find":
		ms, _ := strconv.Atoi(args[1])
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond)
		defer cancel()
		var res findResult
		res.Peer, res.Greeting, res.Error = findAndDial(ctx, strings.Join(args[2:], " "), func(iface string, err error) {
			res.Skipped = append(res.Skipped, iface+": "+err.Error())
		})
		b, _ := json.Marshal(res)
		fmt.Printf("%s\n", b)
		return nil
	}
	return fmt.Errorf("unknown helper mode %q", args[0])
}

type findResult struct {
	Peer     Peer
	Greeting string
	Error    string
	Skipped  []string
}

// findAndDial runs Find on every interface. onSkip is called from Find's
// goroutines, but only before Find returns.
func findAndDial(ctx context.Context, query string, onSkip SkipFunc) (Peer, string, string) {
	p, err := Find(ctx, nil, query, onSkip)
	if err != nil {
		return p, "", err.Error()
	}
	c, err := dialAny(ctx, p.DialAddrs())
	if err != nil {
		return p, "", err.Error()
	}
	defer c.Close()
	greeting, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return p, "", err.Error()
	}
	return p, greeting, ""
}

// proc is a helper process in a namespace.
type proc struct{ *netns.Proc }

func startHelper(t *testing.T, pair *netns.Pair, ns string, args ...string) proc {
	t.Helper()
	return proc{pair.Start(t, ns, []string{helperEnv + "=" + strings.Join(args, " ")},
		os.Args[0])}
}

// stop closes stdin, the helpers' signal to finish cleanly, and waits.
func (p proc) stop(t *testing.T) { t.Helper(); p.Stop(t) }

// guard bounds every wait so a broken test fails instead of hanging. It
// is not a timing assertion: every wait here is for something that
// happens in well under a second when things work.
const guard = 60 * time.Second

// next returns the next line, failing the test if there is none.
func (p proc) next(t *testing.T, what string) string {
	t.Helper()
	select {
	case l, ok := <-p.Lines:
		if !ok {
			t.Fatalf("helper exited while waiting for %s", what)
		}
		return l
	case <-time.After(guard):
		t.Fatalf("no %s from helper", what)
	}
	return ""
}

// waitList reads browse updates until one satisfies ok.
func (p proc) waitList(t *testing.T, what string, ok func([]Peer) bool) []Peer {
	t.Helper()
	for {
		l := p.next(t, what)
		var peers []Peer
		if json.Unmarshal([]byte(l), &peers) != nil {
			continue // not ours: the test binary's own output
		}
		if ok(peers) {
			return peers
		}
	}
}

func advertiseIn(t *testing.T, pair *netns.Pair) (proc, int) {
	t.Helper()
	adv := startHelper(t, pair, pair.A, "advertise", pair.VethA)
	line := adv.next(t, "advertiser ready")
	port, err := strconv.Atoi(strings.TrimPrefix(line, "ready "))
	if err != nil {
		t.Fatalf("advertiser said %q", line)
	}
	return adv, port
}

func TestMDNSInNamespaces(t *testing.T) {
	pair := netns.NewPair(t)
	adv, port := advertiseIn(t, pair)
	browser := startHelper(t, pair, pair.B, "browse", pair.VethB, "0")

	peers := browser.waitList(t, "the advertised peer", func(p []Peer) bool { return len(p) > 0 })
	if len(peers) != 1 {
		t.Fatalf("browse saw %d peers, want 1: %+v", len(peers), peers)
	}
	p := peers[0]
	if p.Name != testName || p.Fingerprint != testFP || p.Version != ProtocolVersion || p.Port != port ||
		p.Instance != testName+" (K7QX)" || p.Host == "" {
		t.Errorf("browse saw %+v, want name %q fp %s version %d port %d", p, testName, testFP, ProtocolVersion, port)
	}
	if len(p.Addrs) == 0 || !p.Addrs[0].Equal(pair.AddrA) {
		t.Errorf("addresses %v, want %v first", p.Addrs, pair.AddrA)
	}
	if !p.Expires.After(time.Now()) || p.Expires.After(time.Now().Add(leaveAfter)) {
		t.Errorf("entry expires at %v, want within %v from now", p.Expires, leaveAfter)
	}

	find := func(t *testing.T, ms int, q string) findResult {
		f := startHelper(t, pair, pair.B, "find", strconv.Itoa(ms), q)
		line := f.next(t, "find result")
		f.stop(t)
		var res findResult
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("find said %q", line)
		}
		return res
	}
	for _, q := range []string{"zoë's LAPTOP", "k7qx-m2", "K7QXM2PA9RTEWD4C"} {
		t.Run("find "+q, func(t *testing.T) {
			res := find(t, 30000, q)
			if res.Error != "" || res.Peer.Fingerprint != testFP || res.Greeting != "ferry\n" {
				t.Errorf("find %q: %+v", q, res)
			}
		})
	}
	t.Run("find unknown", func(t *testing.T) {
		// The peer is known to be up, so one round of browsing sees it.
		res := find(t, int(roundLength/time.Millisecond), "nobody")
		if !strings.Contains(res.Error, "no such device") || !strings.Contains(res.Error, testFP) {
			t.Errorf("find of an unknown name: %+v, want not found, listing %s", res, testFP)
		}
	})

	adv.stop(t)
	browser.stop(t)
}

// leaveLimit is the package's promise for a receiver that stops or is
// killed: gone from a live list within 10 s (leaveAfter, 7 s, at most).
// It is the behaviour under test, with the browse's real clock; the wait
// for it ends there.
const leaveLimit = 10 * time.Second

// TestMDNSLeaving: a receiver that stops (Close, a goodbye that
// zeroconf's Resolver swallows) and one that is killed (nothing said)
// both leave a browser's live list within leaveLimit, with the real
// round length.
func TestMDNSLeaving(t *testing.T) {
	for _, how := range []string{"stops", "is killed"} {
		t.Run(how, func(t *testing.T) {
			pair := netns.NewPair(t)
			browser := startHelper(t, pair, pair.B, "browse", pair.VethB, "0")
			adv, _ := advertiseIn(t, pair)
			browser.waitList(t, "the advertised peer", func(p []Peer) bool { return len(p) == 1 })
			gone := time.Now()
			if how == "stops" {
				adv.stop(t)
			} else if err := adv.Cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			limit := time.After(time.Until(gone.Add(leaveLimit)))
			for left := false; !left; {
				select {
				case l, ok := <-browser.Lines:
					if !ok {
						t.Fatal("browser exited")
					}
					var peers []Peer
					left = json.Unmarshal([]byte(l), &peers) == nil && len(peers) == 0
				case <-limit:
					t.Fatalf("the receiver that %s was still listed %v later", how, leaveLimit)
				}
			}
			t.Logf("the receiver that %s left the list after %v", how, time.Since(gone).Round(time.Millisecond))
			browser.stop(t)
		})
	}
}

// TestInteropPython checks that a standard DNS-SD browser, python-zeroconf
// from Debian, sees the service and reads its TXT record.
func TestInteropPython(t *testing.T) {
	const py = "/usr/bin/python3"
	pair := netns.NewPair(t) // skips first where namespaces are not available
	// Where the test can run, CI has run tests/install-deps.sh: a missing
	// module is a broken setup, not a reason to pass.
	if err := exec.Command(py, "-c", "import zeroconf").Run(); err != nil {
		t.Fatalf("needs python3-zeroconf (tests/install-deps.sh installs it): %v", err)
	}
	_, port := advertiseIn(t, pair)
	script := `
import json, sys, threading
from zeroconf import Zeroconf, ServiceBrowser
zc = Zeroconf()
found = threading.Event()
class L:
    def add_service(self, zc, type_, name):
        info = zc.get_service_info(type_, name, timeout=10000)
        if info is None:
            return
        print(json.dumps({"name": name, "port": info.port,
            "props": {k.decode(): (v or b"").decode() for k, v in info.properties.items()},
            "addrs": info.parsed_addresses()}), flush=True)
        found.set()
    def update_service(self, *a): pass
    def remove_service(self, *a): pass
ServiceBrowser(zc, "_ferry._tcp.local.", L())
ok = found.wait(50)
zc.close()
sys.exit(0 if ok else 1)
`
	out, err := pair.Command(pair.B, py, "-c", script).Output()
	if err != nil {
		t.Fatalf("python-zeroconf browse: %v: %s", err, out)
	}
	var got struct {
		Name  string
		Port  int
		Props map[string]string
		Addrs []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python said %q: %v", out, err)
	}
	if got.Name != testName+" (K7QX)."+serviceFQDN || got.Port != port ||
		got.Props["v"] != "2" || got.Props["name"] != testName || got.Props["fp"] != testFP {
		t.Errorf("python-zeroconf saw %+v", got)
	}
	if len(got.Addrs) == 0 || got.Addrs[0] != pair.AddrA.String() {
		t.Errorf("python-zeroconf addresses %v, want %v first", got.Addrs, pair.AddrA)
	}
}

// TestInteropPythonAdvertises checks the other direction: Browse and Find
// read a receiver that python-zeroconf from Debian advertises, with
// Ferry's TXT record, and dial it. python-zeroconf's answers carry an
// NSEC record miekg/dns refuses (see nsec.go), and the Find starts after
// python's announcements, so this also shows that guard at work.
func TestInteropPythonAdvertises(t *testing.T) {
	const py = "/usr/bin/python3"
	pair := netns.NewPair(t) // skips first where namespaces are not available
	if err := exec.Command(py, "-c", "import zeroconf").Run(); err != nil {
		t.Fatalf("needs python3-zeroconf (tests/install-deps.sh installs it): %v", err)
	}
	script := `
import socket, sys, threading
from zeroconf import Zeroconf, ServiceInfo
srv = socket.socket()
srv.bind(("0.0.0.0", 0))
srv.listen()
port = srv.getsockname()[1]
def greet():
    conn, _ = srv.accept()
    conn.sendall(b"ferry\n")
    conn.close()
threading.Thread(target=greet, daemon=True).start()
zc = Zeroconf(interfaces=[sys.argv[1]])
info = ServiceInfo("_ferry._tcp.local.", "py box (K7QX)._ferry._tcp.local.", port=port,
    properties={"v": "1", "name": "py box", "fp": "K7QX-M2PA-9RTE-WD4C"},
    server="pybox.local.", addresses=[socket.inet_aton(sys.argv[1])])
zc.register_service(info)
print("ready", port, flush=True)
sys.stdin.read()
zc.unregister_service(info)
zc.close()
`
	adv := proc{pair.Start(t, pair.A, nil, py, "-c", script, pair.AddrA.String())}
	line := adv.next(t, "python ready")
	port, err := strconv.Atoi(strings.TrimPrefix(line, "ready "))
	if err != nil {
		t.Fatalf("python said %q", line)
	}
	f := startHelper(t, pair, pair.B, "find", "30000", "py box")
	line = f.next(t, "find result")
	f.stop(t)
	var res findResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("find said %q", line)
	}
	p := res.Peer
	if res.Error != "" || res.Greeting != "ferry\n" || p.Name != "py box" || p.Fingerprint != testFP ||
		p.Version != 1 || p.Port != port || len(p.Addrs) == 0 || !p.Addrs[0].Equal(pair.AddrA) {
		t.Errorf("find of python's receiver: %+v", res)
	}
	adv.stop(t)
}

// dialAny connects to the first of addrs that answers, as core/transfer's
// Send dials a discovered peer (core/transfer cannot be imported here:
// it is a layer above).
func dialAny(ctx context.Context, addrs []string) (net.Conn, error) {
	var errs []error
	for _, a := range addrs {
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err := d.DialContext(ctx, "tcp", a)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("dialing %q: %w", addrs, errors.Join(errs...))
}
