// Package spare lends work to a goroutine kept for it, but only while
// that goroutine is idle: a walk of a tree on two goroutines (core/send's
// walk of a folder item, core/app/pick's check of one) hands a folder to
// the spare goroutine when it is free and walks the folder itself when
// it is not, so the work never queues and never waits for a goroutine.
package spare

import "sync"

// Goroutines is the spare goroutines of one walk.
type Goroutines struct {
	slot chan struct{} // a token for each spare goroutine at work
	wg   sync.WaitGroup
}

// New returns n spare goroutines (0: none, and Claim always fails).
func New(n int) *Goroutines { return &Goroutines{slot: make(chan struct{}, n)} }

// Claim reserves an idle spare goroutine and reports whether there was
// one. A claim is used by Go or given back by Release.
func (g *Goroutines) Claim() bool {
	select {
	case g.slot <- struct{}{}:
		return true
	default:
		return false
	}
}

// ClaimSplit is Claim for the second half of a folder's listing of n
// entries, which fails without claiming when either half would hold
// fewer than minSplit entries.
func (g *Goroutines) ClaimSplit(n int) bool { return n >= 2*minSplit && g.Claim() }

// minSplit is the fewest entries either half of a split listing holds:
// a shorter listing is done before a split's descriptor and goroutine
// would pay for themselves (not measured finely: 64 entries are about
// 0.2 ms of work).
const minSplit = 64

// Release gives back a claim that Go will not use.
func (g *Goroutines) Release() { <-g.slot }

// Go runs f on the claimed goroutine, which is idle again when f
// returns.
func (g *Goroutines) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.Release()
		f()
	}()
}

// Wait waits until every f given to Go has returned.
func (g *Goroutines) Wait() { g.wg.Wait() }
