package spare

import (
	"sync/atomic"
	"testing"
)

// TestClaim: a claim is had only while a spare goroutine is idle, Go
// frees it when its work returns, and Wait waits for that work.
func TestClaim(t *testing.T) {
	if New(0).Claim() {
		t.Fatal("a claim with no spare goroutine")
	}
	g := New(1)
	if !g.Claim() {
		t.Fatal("no claim on an idle spare goroutine")
	}
	if g.Claim() {
		t.Fatal("a second claim on one spare goroutine")
	}
	g.Release()
	if !g.Claim() {
		t.Fatal("no claim after Release")
	}
	var ran atomic.Bool
	hold := make(chan struct{})
	g.Go(func() { <-hold; ran.Store(true) })
	if g.Claim() {
		t.Fatal("a claim while the spare goroutine works")
	}
	close(hold)
	g.Wait()
	if !ran.Load() {
		t.Fatal("Wait returned before the work did")
	}
	if !g.Claim() {
		t.Fatal("no claim once the work returned")
	}
	g.Release()
}
