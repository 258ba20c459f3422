package mobile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/testkit/netns"
)

// TestMDNSInNamespaces covers the zeroconf path that phones leave off and
// desktops use: ReceiveOptions.Advertise on one Node and StartBrowse and
// StopBrowse on another. Real mDNS runs over a veth pair between two
// network namespaces (core/testkit/netns), each Node in a copy of this test
// binary started by ip netns exec, so nothing reaches the machine's own
// interfaces. Without root it skips, saying why.
//
// The receiver advertises in A; the sender browses in B and must list it
// with its name, fingerprint and address, lose it on StopBrowse, find it
// again on StartBrowse, find it again when StopBrowse and StartBrowse
// come back to back (the list empty in between), send it a text through
// the listed key, and drop it when the receiver's one transfer ends and
// its goodbye goes out.

const (
	mdnsChildEnv = "FERRY_MOBILE_MDNS" // "advertise IFACE" or "browse IFACE": run as that Node
	mdnsName     = "Zoë's laptop"
	mdnsText     = "found over mDNS"
	mdnsGuard    = 60 * time.Second // bounds every wait; things happen in well under a second
)

func TestMDNSInNamespaces(t *testing.T) {
	pair := netns.NewPair(t)
	browser := startMDNSChild(t, pair, pair.B, "browse", pair.VethB)
	adv := startMDNSChild(t, pair, pair.A, "advertise", pair.VethA)

	ready := strings.Fields(adv.expect(t, "READY"))
	if len(ready) != 3 {
		t.Fatalf("advertiser said %q", ready)
	}
	port, fp, code := ready[0], ready[1], ready[2]
	key, _ := nearby.Advertisement(mdnsName, fp)

	found := func() peer {
		t.Helper()
		var list []peer
		browser.expectFunc(t, "the advertised peer", "PEERS", func(js string) bool {
			return json.Unmarshal([]byte(js), &list) == nil && len(list) > 0
		})
		if len(list) != 1 {
			t.Fatalf("browse listed %d peers, want 1: %+v", len(list), list)
		}
		return list[0]
	}
	gone := func(why string) {
		t.Helper()
		browser.expectFunc(t, why, "PEERS", func(js string) bool { return js == "[]" })
	}

	p := found()
	if p.Key != key || p.Name != mdnsName || p.Fingerprint != fp || p.Version != nearby.ProtocolVersion ||
		!p.Compatible || strconv.Itoa(p.Port) != port || p.Source != "mdns" || p.Host == "" {
		t.Errorf("browse listed %+v, want key %q name %q fingerprint %s port %s from mdns", p, key, mdnsName, fp, port)
	}
	if want := pair.AddrA.String() + ":" + port; len(p.Addrs) == 0 || p.Addrs[0] != want {
		t.Errorf("addresses %q, want %s first", p.Addrs, want)
	}

	browser.say(t, "stop")
	gone("the list emptied by StopBrowse")
	browser.say(t, "start")
	if p := found(); p.Key != key {
		t.Errorf("browse again listed %+v, want key %q", p, key)
	}
	browser.say(t, "restart")
	if got := browser.expect(t, "RESTARTED"); got != "[]" {
		t.Errorf("the list right after StopBrowse and StartBrowse: %s", got)
	}
	if p := found(); p.Key != key {
		t.Errorf("browse restarted listed %+v, want key %q", p, key)
	}

	browser.say(t, "send "+code+" "+key)
	if got := browser.expect(t, "SENT"); got != "ok" {
		t.Fatalf("sending to the listed peer: %s", got)
	}
	if got := adv.expect(t, "TEXT"); got != mdnsText {
		t.Errorf("receiver got text %q, want %q", got, mdnsText)
	}
	gone("the peer's removal after its goodbye") // the transfer ended, and with it the advertisement

	adv.stop(t)
	browser.stop(t)
}

// mdnsChild is one Node in a namespace, driven by lines on stdin and
// reporting on stdout, one line each:
//
//	advertise IFACE  Receive with Advertise on IFACE, AutoAccept; says
//	                 "READY port fingerprint code", then "TEXT text" for
//	                 what arrives
//	browse IFACE     StartBrowse on IFACE; says "PEERS json" for
//	                 each "peers" event; takes "stop" (StopBrowse), "start"
//	                 (StartBrowse), "restart" (StopBrowse and StartBrowse
//	                 back to back, then "RESTARTED json", the list
//	                 between them), "send CODE KEY" (Send a text to the
//	                 listed peer KEY, then "SENT ok" or "SENT error")
//
// Either says "FAILED kind: message" for an an "error" event, and Closes the Node
// and exits at the end of stdin.
func mdnsChild(args string) int {
	role, iface, _ := strings.Cut(args, " ")
	var outMu sync.Mutex
	say := func(format string, a ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Printf(format+"\n", a...)
	}
	fail := func(err error) int {
		say("FAILED %v", err)
		return 1
	}
	rec := newRecorder()
	rec.onCall = func(c call) {
		switch c.method {
		case "peers":
			say("PEERS %s", c.arg)
		case "text":
			_, text, _ := strings.Cut(c.arg, " ")
			say("TEXT %s", text)
		case "error":
			say("FAILED %s", c.arg)
		}
	}
	dir, err := os.MkdirTemp("", "ferry-mdns-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	cfg := NewConfig()
	cfg.Name = mdnsName
	cfg.DataDir = dir
	n, err := NewNode(cfg, rec)
	if err != nil {
		return fail(err)
	}
	defer n.Close()

	in := bufio.NewScanner(os.Stdin)
	switch role {
	case "advertise":
		opts := NewReceiveOptions()
		opts.Dir = dir
		opts.AutoAccept = true
		opts.Advertise = true
		opts.Ifaces = iface
		tr, err := n.Receive(opts)
		if err != nil {
			return fail(err)
		}
		say("READY %d %s %s", tr.Port(), n.Fingerprint(), tr.Code())
		for in.Scan() {
		}
	case "browse":
		if err := n.StartBrowse(iface); err != nil {
			return fail(err)
		}
		for in.Scan() {
			cmd, rest, _ := strings.Cut(in.Text(), " ")
			switch cmd {
			case "stop":
				err = n.StopBrowse()
			case "start":
				err = n.StartBrowse(iface)
			case "restart":
				if err = n.StopBrowse(); err == nil {
					list := n.Peers()
					if err = n.StartBrowse(iface); err == nil {
						say("RESTARTED %s", list)
					}
				}
			case "send":
				err = mdnsSend(n, rec, rest)
				if err != nil {
					say("SENT %v", err)
				} else {
					say("SENT ok")
				}
				err = nil
			}
			if err != nil {
				return fail(err)
			}
		}
	default:
		return fail(fmt.Errorf("unknown role %q", role))
	}
	if err := n.Close(); err != nil {
		return fail(err)
	}
	return 0
}

// mdnsSend sends mdnsText to the listed peer named in "CODE KEY" and waits
// for the transfer's end.
func mdnsSend(n *Node, rec *recorder, codeKey string) error {
	code, key, _ := strings.Cut(codeKey, " ")
	opts := NewSendOptions()
	opts.Peer = key
	opts.Code = code
	items, _ := json.Marshal([]map[string]string{{"text": mdnsText}})
	opts.ItemsJSON = string(items)
	tr, err := n.Send(opts)
	if err != nil {
		return err
	}
	end, ok := rec.find(mdnsGuard, 0, ended(tr.ID()))
	if !ok {
		return fmt.Errorf("transfer %d did not end within %v", tr.ID(), mdnsGuard)
	}
	if end.method == "error" {
		return errors.New(end.arg)
	}
	return nil
}

// mdnsProc is a child Node, with the lines it said that no expect took
// yet.
type mdnsProc struct {
	*netns.Proc
	kept []string
}

func startMDNSChild(t *testing.T, pair *netns.Pair, ns string, role, iface string) *mdnsProc {
	t.Helper()
	return &mdnsProc{Proc: pair.Start(t, ns, []string{mdnsChildEnv + "=" + role + " " + iface}, os.Args[0], "-test.run=^$")}
}

func (p *mdnsProc) say(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.Stdin, line+"\n"); err != nil {
		t.Fatalf("telling the child %q: %v", line, err)
	}
}

// expect returns the rest of the next line that starts with tag, failing
// the test on a FAILED line, on the child's exit, or after mdnsGuard.
func (p *mdnsProc) expect(t *testing.T, tag string) string {
	t.Helper()
	return p.expectFunc(t, tag, tag, func(string) bool { return true })
}

// expectFunc is expect for the first line with tag whose rest ok accepts;
// lines with tag before it are dropped. Lines with other tags are kept
// for a later expect: the two ends of a transfer, say, race to report.
func (p *mdnsProc) expectFunc(t *testing.T, what, tag string, ok func(rest string) bool) string {
	t.Helper()
	take := func(l string) (string, bool) {
		if rest, found := strings.CutPrefix(l, "FAILED "); found {
			t.Fatalf("child failed while waiting for %s: %s", what, rest)
		}
		rest, found := strings.CutPrefix(l, tag+" ")
		return rest, found
	}
	kept := p.kept[:0:0]
	defer func() { p.kept = kept }()
	for i, l := range p.kept {
		if rest, found := take(l); !found {
			kept = append(kept, l)
		} else if ok(rest) {
			kept = append(kept, p.kept[i+1:]...)
			return rest
		}
	}
	deadline := time.After(mdnsGuard)
	for {
		select {
		case l, open := <-p.Lines:
			if !open {
				t.Fatalf("child %v exited while waiting for %s", p.Cmd.Args, what)
			}
			if rest, found := take(l); !found {
				kept = append(kept, l)
			} else if ok(rest) {
				return rest
			}
		case <-deadline:
			t.Fatalf("no %s from the child within %v", what, mdnsGuard)
		}
	}
}

// stop ends the child's stdin, its signal to Close the Node, and checks
// that it exits cleanly.
func (p *mdnsProc) stop(t *testing.T) { t.Helper(); p.Stop(t) }
