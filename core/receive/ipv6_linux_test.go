package receive

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/testkit/netns"
)

// fromIP dials from a given source address (with its zone for a
// link-local one).
func fromIP(ip string) func(ctx context.Context, addr string) (net.Conn, error) {
	a, zone, _ := strings.Cut(ip, "%")
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(a), Zone: zone}}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", addr)
	}
}

// IPv6 hosts are bucketed by their full address, on a SLAAC /64 and on
// the link-local fe80::/64 alike: one address's stalled connections
// never evict another address's pending one (before, they shared the
// /64's bucket of maxPendingPerSource and the honest one was closed
// first, being the oldest), and an honest sender from the same /64 still
// gets in. A /64 as a whole is capped at maxPendingPerNet.
func TestIPv6SourcesByAddress(t *testing.T) {
	if !netns.Rerun(t, "2001:db8:5:6::1/64", "2001:db8:5:6::a/64", "2001:db8:5:6::b/64",
		"2001:db8:5:6::c/64", "2001:db8:5:6::d/64", "2001:db8:5:6::e/64", "fe80::1/64", "fe80::a/64", "fe80::b/64") {
		return
	}
	for _, c := range []struct{ name, recv, flooder, honest string }{
		{"SLAAC /64", "[2001:db8:5:6::1]", "2001:db8:5:6::a", "2001:db8:5:6::b"},
		{"link-local", "[fe80::1%lo]", "fe80::a%lo", "fe80::b%lo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Listen: "[::]:0"})
			addr := fmt.Sprintf("%s:%d", c.recv, p.r.Port())
			// The honest host's connection is pending first (its
			// handshake not begun), then the flood from one address.
			honest, err := fromIP(c.honest)(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer honest.Close()
			honestClosed := make(chan struct{})
			go func() { io.Copy(io.Discard, honest); close(honestClosed) }()
			const n = 3 * maxPendingPerSource
			closed := make(chan int, n)
			for i := range n {
				nc, err := fromIP(c.flooder)(ctx, addr)
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				go func() { io.Copy(io.Discard, nc); closed <- i }()
			}
			for range n - maxPendingPerSource {
				select {
				case i := <-closed:
					if i >= n-maxPendingPerSource {
						t.Fatalf("flood connection %d of %d closed; the flooder's oldest should go first", i, n)
					}
				case <-honestClosed:
					t.Fatalf("%s's pending connection was closed by %s's flood", c.honest, c.flooder)
				case <-t.Context().Done():
					return
				}
			}
			select {
			case <-honestClosed:
				t.Fatalf("%s's pending connection was closed by %s's flood", c.honest, c.flooder)
			default:
			}
			src := filepath.Join(t.TempDir(), "f.txt")
			writeFile(t, src, []byte("an honest neighbour"))
			p.send.Addrs, p.send.Dialer = []string{addr}, fromIP(c.honest)
			if _, serr, _, rerr := p.run(ctx, event.Item{Path: src}); serr != nil || rerr != nil {
				t.Fatalf("honest sender from %s: send %v, receive %v", c.honest, serr, rerr)
			}
		})
	}
	t.Run("per /64", func(t *testing.T) {
		ctx := t.Context()
		p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, Listen: "[::]:0"})
		addr := fmt.Sprintf("[2001:db8:5:6::1]:%d", p.r.Port())
		hosts := []string{"2001:db8:5:6::a", "2001:db8:5:6::b", "2001:db8:5:6::c", "2001:db8:5:6::d", "2001:db8:5:6::e"}
		n := len(hosts) * maxPendingPerSource // each host under its own cap, the /64 over its
		closed := make(chan int, n)
		for i := range n {
			nc, err := fromIP(hosts[i/maxPendingPerSource])(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			go func() { io.Copy(io.Discard, nc); closed <- i }()
		}
		for range n - maxPendingPerNet {
			if i := <-closed; i >= n-maxPendingPerNet {
				t.Fatalf("connection %d of %d closed; the /64's oldest should go first", i, n)
			}
		}
		// IPv4 and link-local senders are in other buckets.
		src := filepath.Join(t.TempDir(), "f.txt")
		writeFile(t, src, []byte("beside a full /64"))
		p.send.Addrs, p.send.Dialer = []string{fmt.Sprintf("[fe80::1%%lo]:%d", p.r.Port())}, fromIP("fe80::b%lo")
		if _, serr, _, rerr := p.run(ctx, event.Item{Path: src}); serr != nil || rerr != nil {
			t.Fatalf("sender beside a full /64: send %v, receive %v", serr, rerr)
		}
	})
}
