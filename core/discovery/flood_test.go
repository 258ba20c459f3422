package discovery

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/net/ipv4"
)

// spoofPackets are n mDNS answers, each announcing its own receiver
// (PTR, SRV, TXT and A, as an advertiser sends them), named after tag.
func spoofPackets(t testing.TB, tag string, n int) [][]byte {
	out := make([][]byte, n)
	hdr := func(name string, ty uint16) dns.RR_Header {
		return dns.RR_Header{Name: name, Rrtype: ty, Class: dns.ClassINET, Ttl: 120}
	}
	for i := range out {
		instance := fmt.Sprintf("%s %d (N0AD)", tag, i)
		full := escapePresentation(instance) + "." + serviceFQDN
		host := fmt.Sprintf("%s-%d.local.", tag, i)
		m := new(dns.Msg)
		m.Response, m.Authoritative = true, true
		m.Answer = []dns.RR{
			&dns.PTR{Hdr: hdr(serviceFQDN, dns.TypePTR), Ptr: full},
			&dns.SRV{Hdr: hdr(full, dns.TypeSRV), Port: 4711, Target: host},
			&dns.TXT{Hdr: hdr(full, dns.TypeTXT), Txt: TXTStrings(fmt.Sprintf("%s %d", tag, i), "N0AD-AAAA-BBBB-CCCC")},
			&dns.A{Hdr: hdr(host, dns.TypeA), A: net.IPv4(127, 0, byte(i>>8), byte(i)).To4()},
		}
		b, err := m.Pack()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestBrowseUnderFlood feeds a browse on lo 4,000 spoofed receivers a
// round, through zeroconf's own Resolver (multicast loopback, nothing
// leaves lo), beside one real receiver, and measures what the browse's
// goroutine spends on them: its busy time against the round, the lists
// it hands OnChange (the app's list and `ferry peers` read those) and
// the peers copied into them. The table holds at most maxPeers, and the
// listing is handed over at most every listEvery, so the goroutine keeps
// up with its rounds and a list never grows past the cap.
func TestBrowseUnderFlood(t *testing.T) {
	lo := onLoopback(t)
	const perRound, rounds = 4000, 2
	a, err := Advertise(AdvertiseConfig{Name: "real one", Fingerprint: "FLDR-EALA-AAAA-BBBB", Port: 4711, Ifaces: []string{"lo"}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := ipv4.NewPacketConn(c).SetMulticastInterface(&lo); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var calls, copied, longest int
	var last []Peer
	work := &browseWork{}
	ctx, cancel := context.WithTimeout(context.Background(), rounds*roundLength+settleWindow)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Browse(ctx, BrowseConfig{Ifaces: []string{"lo"}, work: work, OnChange: func(p []Peer) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			copied += len(p)
			longest = max(longest, len(p))
			last = p
		}})
	}()
	// Each round, 4,000 new names spread over most of it (a burst would
	// only overflow lo's socket buffers), after the real receiver's own
	// answer at the round's start.
	const batch = 20
	for r := range rounds {
		packets := spoofPackets(t, fmt.Sprintf("spoof%d", r), perRound)
		start := time.Now()
		time.Sleep(roundLength / 10) // pacing the flood against the browse's clock
		for i, p := range packets {
			if _, err := c.WriteToUDP(p, &net.UDPAddr{IP: groupIPv4, Port: 5353}); err != nil {
				t.Fatal(err)
			}
			if i%batch == batch-1 {
				time.Sleep(roundLength * 8 / 10 * batch / perRound)
			}
		}
		time.Sleep(time.Until(start.Add(roundLength)))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	real := false
	for _, p := range last {
		real = real || p.Name == "real one"
	}
	t.Logf("per round of %v: %d entries taken, %v busy, %d lists handed over, %d peers copied into them; longest list %d, real receiver listed at the end: %v",
		roundLength, work.entries/rounds, work.busy/rounds, calls/rounds, copied/rounds, longest, real)
	if work.entries < perRound/2 {
		t.Fatalf("only %d of %d spoofed answers reached the browse: lo dropped them, so the flood was not measured", work.entries, rounds*perRound)
	}
	if work.busy/rounds > roundLength/3 {
		t.Errorf("the browse's goroutine was busy %v a round of %v", work.busy/rounds, roundLength)
	}
	if longest > maxPeers {
		t.Errorf("a list of %d peers, over the cap of %d", longest, maxPeers)
	}
}
