//go:build !race

package benches

const raceEnabled = false
