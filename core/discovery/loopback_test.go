package discovery

import (
	"context"
	"net"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestSameMachineOnLoopback: a receiver and a browser in one process, on
// lo alone (the way tests and two instances on one machine use it), find
// each other through multicast loopback, and once both are done no
// goroutine of theirs is left. Nothing leaves lo.
func TestSameMachineOnLoopback(t *testing.T) {
	if _, err := net.InterfaceByName("lo"); err != nil {
		t.Skipf("no interface named lo (darwin calls it lo0, windows has none): %v", err)
	}
	running := testkit.Running()
	const fp = "L7PB-ACKT-EST2-3456" // unique to this test, so no other advertiser matches
	var skipped []string
	onSkip := func(iface string, err error) { skipped = append(skipped, iface+": "+err.Error()) }
	a, err := Advertise(AdvertiseConfig{Name: "loop", Fingerprint: fp, Port: 4711, Ifaces: []string{"lo"}, OnSkip: onSkip})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	p, err := Find(ctx, []string{"lo"}, fp, onSkip)
	a.Close()
	if err != nil {
		t.Fatal(err)
	}
	if p.Port != 4711 || len(p.Addrs) == 0 || !p.Addrs[0].IsLoopback() {
		t.Errorf("found %+v, want port 4711 at a loopback address", p)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %q on lo", skipped)
	}
	// Close and Find wait for their goroutines; give the runtime's own
	// bookkeeping (timers, the network poller) a moment to settle.
	if left := running.Leaked(guard); left != "" {
		t.Fatalf("goroutines outlived Close and Find:\n%s", left)
	}
}
