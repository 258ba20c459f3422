package dial

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestMain fails the run if any goroutine started by the tests outlives
// them.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// TestDialFirst points at a closed port first and a listener second:
// First must get past the failure, and when everything fails, say
// what it tried. (These are core/discovery's Peer.Dial assertions, from
// before every front end dialed through Send.)
func TestDialFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := portOf(ln.Addr())

	// A listener closed again leaves a port that refuses connections.
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead.Close()
	deadPort := portOf(dead.Addr())

	addrs := []string{"127.0.0.1:" + deadPort, "[::1]:" + deadPort}
	_, _, err = First(context.Background(), addrs, nil)
	if err == nil {
		t.Fatal("dial to a closed port succeeded")
	}
	for _, a := range addrs {
		if !strings.Contains(err.Error(), a) {
			t.Errorf("error %q does not name %s", err, a)
		}
	}
	var opErr *net.OpError
	if strings.Contains(err.Error(), "\n") || !errors.As(err, &opErr) {
		t.Errorf("error %q is not one line unwrapping to each attempt's", err)
	}
	if _, _, err := First(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "no addresses") {
		t.Errorf("First without addresses: %v", err)
	}

	// The closed port refuses, the listener answers: every platform has
	// 127.0.0.1, where only Linux has the rest of 127.0.0.0/8.
	c, got, err := First(context.Background(), []string{"127.0.0.1:" + deadPort, "127.0.0.1:" + port}, nil)
	if err != nil {
		t.Fatalf("First: %v", err)
	}
	c.Close()
	if got != "127.0.0.1:"+port {
		t.Errorf("connected to %s, want the second address", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := First(ctx, []string{"127.0.0.1:" + port}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("First with a cancelled context: %v, want context.Canceled", err)
	}
}

// A SendConfig.Dialer is called once per address, in order, until one
// answers; an error of its own that does not name the address is named.
func TestDialFirstDialer(t *testing.T) {
	var tried []string
	a, b := net.Pipe()
	defer b.Close()
	dial := func(_ context.Context, addr string) (net.Conn, error) {
		tried = append(tried, addr)
		if addr != "third" {
			return nil, errors.New("cut")
		}
		return a, nil
	}
	c, got, err := First(context.Background(), []string{"first", "second", "third", "fourth"}, dial)
	if err != nil || c != a || got != "third" || strings.Join(tried, " ") != "first second third" {
		t.Fatalf("First = %v, %q, %v after %q", c, got, err, tried)
	}
	c.Close()
	_, _, err = First(context.Background(), []string{"first", "second"}, dial)
	if err == nil || err.Error() != "first: cut; second: cut" {
		t.Errorf("error %q, want each address named with its failure", err)
	}
}

func portOf(a net.Addr) string {
	_, p, _ := net.SplitHostPort(a.String())
	return p
}
