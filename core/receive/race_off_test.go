//go:build !race

package receive

const raceEnabled = false
