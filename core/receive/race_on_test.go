//go:build race

package receive

// raceEnabled shrinks the largest tests under the race detector, which
// slows every memory access by an order of magnitude.
const raceEnabled = true
