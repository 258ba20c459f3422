//go:build race

package benches

const raceEnabled = true
