//go:build !race

package mobile

const raceEnabled = false
