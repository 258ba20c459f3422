package discovery

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/grandcat/zeroconf"
	"github.com/miekg/dns"
	"golang.org/x/net/ipv4"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/netns"
)

// The guards Ferry keeps beside grandcat/zeroconf, each shown needed: the
// first half of every test runs zeroconf (or miekg/dns under it) bare and
// checks that the failure is real, the second runs Ferry's code in the
// same situation. Should a zeroconf release fix one, its first half fails
// and says so, and the guard can go.

// onLoopback skips a test that needs Linux's lo, where mDNS stays inside
// this machine (multicast loopback), and returns it.
func onLoopback(t *testing.T) net.Interface {
	t.Helper()
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Skipf("no interface named lo (darwin calls it lo0, windows has none): %v", err)
	}
	return *lo
}

// stackHas reports whether a goroutine's stack is zeroconf's Resolver
// loop blocked handing over an entry.
func blockedSend(stack string) bool {
	return strings.Contains(stack, "grandcat/zeroconf.(*client).mainloop") && strings.Contains(stack, "[chan send")
}

// waitFor waits, up to guard, until some goroutine's stack satisfies
// match.
func waitFor(t *testing.T, what string, match func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for testkit.WaitGone(0, match) == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling goroutine states nothing signals
	}
}

// TestGuardDrain: zeroconf's Resolver hands each entry over with a plain
// channel send that does not watch the context, so a reader that stops
// when its context ends strands that goroutine and the Resolver's
// sockets for good. browseRound reads on until zeroconf closes the
// channel, and leaves nothing behind.
func TestGuardDrain(t *testing.T) {
	lo := onLoopback(t)
	// Two receivers, so a second entry is due while the first is handled.
	for _, fp := range []string{"DRAN-AAAA-BBBB-CCCC", "DRBN-DDDD-EEEE-FFFF"} {
		a, err := Advertise(AdvertiseConfig{Name: "drain", Fingerprint: fp, Port: 4711, Ifaces: []string{"lo"}})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
	}
	sel := selection{ifaces: []net.Interface{lo}, v4: true}

	t.Run("bare zeroconf", func(t *testing.T) {
		r, err := zeroconf.NewResolver(zeroconf.SelectIfaces(sel.ifaces), zeroconf.SelectIPTraffic(zeroconf.IPv4))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		entries := make(chan *zeroconf.ServiceEntry)
		if err := r.Browse(ctx, Service, "local.", entries); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "handing over an entry", blockedSend)
		cancel() // and read nothing more, as a reader that obeys ctx would
		if left := testkit.WaitGone(2*time.Second, blockedSend); left == "" {
			t.Error("zeroconf's loop ended though nobody read its entry: the drain guard may no longer be needed")
		}
		for range entries { // release it
		}
	})

	t.Run("browseRound", func(t *testing.T) {
		running := testkit.Running()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		found := 0
		err := browseRound(ctx, sel, guard, guard, func(*zeroconf.ServiceEntry) {
			if found++; found == 1 {
				// The next entry is due: end the round while zeroconf
				// waits to hand it over.
				waitFor(t, "handing over the second entry", blockedSend)
				cancel()
			}
		}, func() {}, func() {})
		if err != nil {
			t.Fatal(err)
		}
		if left := running.Leaked(testkit.LeakLimit); left != "" {
			t.Errorf("goroutines outlived browseRound:\n%s", left)
		}
	})
}

// TestGuardAddresslessEntry: zeroconf passes on an entry once it has an
// address record, but an A record with empty data comes out of miekg/dns
// as a nil address. peerFromEntry does not list such an entry.
func TestGuardAddresslessEntry(t *testing.T) {
	lo := onLoopback(t)
	const instance = "no address (N0AD)"
	m := new(dns.Msg)
	m.Response, m.Authoritative = true, true
	full := instance + "." + serviceFQDN
	hdr := func(name string, t uint16) dns.RR_Header {
		return dns.RR_Header{Name: name, Rrtype: t, Class: dns.ClassINET, Ttl: 120}
	}
	m.Answer = []dns.RR{
		&dns.PTR{Hdr: hdr(serviceFQDN, dns.TypePTR), Ptr: escapePresentation(instance) + "." + serviceFQDN},
		&dns.SRV{Hdr: hdr(escapePresentation(instance)+"."+serviceFQDN, dns.TypeSRV), Port: 4711, Target: "noaddr.local."},
		&dns.TXT{Hdr: hdr(escapePresentation(instance)+"."+serviceFQDN, dns.TypeTXT), Txt: TXTStrings("no address", "N0AD-AAAA-BBBB-CCCC")},
		&dns.A{Hdr: hdr("noaddr.local.", dns.TypeA)}, // no address: packs as empty data
	}
	packet, err := m.Pack()
	if err != nil {
		t.Fatalf("packing %q: %v", full, err)
	}

	r, err := zeroconf.NewResolver(zeroconf.SelectIfaces([]net.Interface{lo}), zeroconf.SelectIPTraffic(zeroconf.IPv4))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	entries := make(chan *zeroconf.ServiceEntry)
	if err := r.Browse(ctx, Service, "local.", entries); err != nil {
		t.Fatal(err)
	}
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := ipv4.NewPacketConn(c).SetMulticastInterface(&lo); err != nil {
		t.Fatal(err)
	}
	// Sent until heard: the Resolver's socket is joined when Browse
	// returns, but a datagram on lo may still be dropped under load.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := c.WriteToUDP(packet, &net.UDPAddr{IP: groupIPv4, Port: 5353}); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-entries:
			if e == nil {
				t.Fatal("zeroconf's browse ended without the entry")
			}
			if unescapePresentation(e.Instance) != instance {
				continue // someone else's receiver on lo
			}
			if len(e.AddrIPv4) == 0 || e.AddrIPv4[0] != nil {
				t.Errorf("zeroconf handed over %v as the addresses: the address guard may no longer be needed", e.AddrIPv4)
			}
			if p, ok := peerFromEntry(e, nil); ok {
				t.Errorf("an entry with no usable address is listed as %+v", p)
			}
			cancel()
			for range entries {
			}
			return
		case <-tick.C:
		}
	}
}

// pythonAnswer is an answer python-zeroconf 0.47 (Debian) sent to a PTR
// query for _ferry._tcp.local., as captured between two namespaces: PTR,
// SRV, TXT, then an NSEC for its host whose type bitmap opens with an
// empty block (00 00), then an A record.
const pythonAnswer = "000084000000000100000004065f6665727279045f746370056c6f63616c00000c0001" +
	"0000119400100d707920626f7820284b37515829c00cc0290021800100000078000e00" +
	"0000001267057079626f78c018c0290010800100001194002703763d310b6e616d653d" +
	"707920626f781666703d4b3751582d4d3250412d395254452d57443443c04b002f8001" +
	"00001194000ac04b0000000400000008c04b000180010000007800040a4d0001"

// TestGuardNSEC: miekg/dns, under zeroconf, rejects python-zeroconf's
// whole answer over its NSEC record; with nsec.go's registration the
// answer unpacks, its NSEC kept unread. The bare half puts miekg/dns's
// own NSEC type back, which changes a table zeroconf's goroutines read:
// it runs in a process of its own (the helper "nsec-bare"), where no
// zeroconf runs, so that no test here races with it.
func TestGuardNSEC(t *testing.T) {
	b, err := hex.DecodeString(pythonAnswer)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=nsec-bare")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the bare helper: %v: %s", err, out)
	}
	if bare := string(out); !strings.Contains(bare, "NSEC") {
		t.Errorf("miekg/dns's own NSEC read python's answer (%q): the NSEC guard may no longer be needed", bare)
	}

	m := new(dns.Msg)
	if err := m.Unpack(b); err != nil {
		t.Fatalf("with the guard: %v", err)
	}
	var types []string
	for _, rr := range append(m.Answer, m.Extra...) {
		types = append(types, dns.TypeToString[rr.Header().Rrtype])
	}
	if got := strings.Join(types, " "); got != "PTR SRV TXT NSEC A" {
		t.Errorf("python's answer unpacked as %s", got)
	}
	if _, err := m.Pack(); err != nil {
		t.Errorf("packing it again: %v", err)
	}
}

// nsecBare is the helper behind TestGuardNSEC's bare half: it unpacks
// python's answer with miekg/dns's own NSEC type and prints the error.
func nsecBare() error {
	b, err := hex.DecodeString(pythonAnswer)
	if err != nil {
		return err
	}
	dns.TypeToRR[dns.TypeNSEC] = func() dns.RR { return new(dns.NSEC) }
	fmt.Printf("%v\n", new(dns.Msg).Unpack(b))
	return nil
}

// familiesResult is what the families helper prints.
type familiesResult struct {
	BareErr    string // zeroconf's NewResolver on the interface, both families
	BareLeaked int    // file descriptors it left open in failing
	Skipped    []string
	V4, V6     bool // the families choose picked
	RoundErr   string
}

// families is the helper behind TestGuardFamilies, run in a namespace.
func families(iface string) error {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return err
	}
	var res familiesResult
	before := openFiles()
	if _, err := zeroconf.NewResolver(zeroconf.SelectIfaces([]net.Interface{*ifi})); err != nil {
		res.BareErr = err.Error()
	}
	res.BareLeaked = openFiles() - before
	sel, err := choose([]string{iface}, map[joinKey]error{}, newReporter(func(iface string, err error) {
		res.Skipped = append(res.Skipped, iface+": "+err.Error())
	}))
	if err != nil {
		return err
	}
	res.V4, res.V6 = sel.v4, sel.v6
	if err := browseRound(context.Background(), sel, 100*time.Millisecond, 50*time.Millisecond, func(*zeroconf.ServiceEntry) {}, func() {}, func() {}); err != nil {
		res.RoundErr = err.Error()
	}
	b, _ := json.Marshal(res)
	fmt.Printf("%s\n", b)
	return nil
}

func openFiles() int {
	fds, _ := os.ReadDir("/proc/self/fd")
	return len(fds)
}

// TestGuardFamilies: on an interface with an MTU under 1280, which has no
// IPv6, zeroconf's Resolver fails outright although IPv4 works, and
// leaves the IPv4 socket it opened behind. Ferry checks the families
// first and asks zeroconf only for IPv4 there: the browse works, and the
// missing IPv6 is no failure worth a report (the interface has no IPv6
// address).
func TestGuardFamilies(t *testing.T) {
	pair := netns.NewPair(t)
	if out, err := exec.Command("ip", "-n", pair.A, "link", "set", pair.VethA, "mtu", "1200").CombinedOutput(); err != nil {
		t.Fatalf("setting the MTU: %v: %s", err, out)
	}
	h := startHelper(t, pair, pair.A, "families", pair.VethA)
	line := h.next(t, "families result")
	h.stop(t)
	var res familiesResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("helper said %q", line)
	}
	if res.BareErr == "" || res.BareLeaked <= 0 {
		t.Errorf("bare zeroconf: error %q, %d descriptors left: the family guard may no longer be needed", res.BareErr, res.BareLeaked)
	}
	if !res.V4 || res.V6 || res.RoundErr != "" || len(res.Skipped) != 0 {
		t.Errorf("Ferry's round: %+v, want IPv4 alone, no error, nothing skipped", res)
	}
}

// TestGuardHostLabel: a name zeroconf cannot pack fails every packet and
// then Shutdown itself, which returns before it closes anything. The
// bare half runs in a namespace's own process, since what it leaves
// cannot be cleaned up; hostLabel keeps every host name packable.
func TestGuardHostLabel(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"box", "box"},
		{"box.example.org", "box"},
		{"Zoë's Mac", "Zo--s-Mac"},
		{strings.Repeat("h", 64), strings.Repeat("h", 63)},
		{strings.Repeat("é", 40), "ferry"},
		{"", "ferry"},
		{"-a-", "a"},
	} {
		got := hostLabel(tt.in)
		if got != tt.want {
			t.Errorf("hostLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
		buf := make([]byte, 512)
		if _, err := dns.PackDomainName(got+".local.", buf, 0, nil, false); err != nil {
			t.Errorf("hostLabel(%q) = %q does not pack: %v", tt.in, got, err)
		}
	}

	pair := netns.NewPair(t)
	h := startHelper(t, pair, pair.A, "longhost", pair.VethA, pair.AddrA.String())
	line := h.next(t, "longhost result")
	h.stop(t)
	if !strings.HasPrefix(line, "left ") || line == "left 0" {
		t.Errorf("bare zeroconf with a 64-byte host label: %q, want goroutines left after Shutdown: the host guard may no longer be needed", line)
	}
}

// longHost is the helper behind TestGuardHostLabel: a zeroconf Server
// whose host label is 64 bytes, shut down; it prints how many of
// zeroconf's goroutines are left.
func longHost(iface, addr string) error {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return err
	}
	s, err := zeroconf.RegisterProxy("long (L0NG)", Service, "local.", 4711, strings.Repeat("h", 64),
		[]string{addr}, []string{"v=2"}, []net.Interface{*ifi})
	if err != nil {
		return err
	}
	s.Shutdown()
	// The start-up announcer ends by itself within 3.5 s; what is left
	// after LeakLimit stays.
	left := testkit.WaitGone(testkit.LeakLimit, func(st string) bool { return strings.Contains(st, "grandcat/zeroconf") })
	fmt.Printf("left %d\n", strings.Count(left, "goroutine "))
	return nil
}
