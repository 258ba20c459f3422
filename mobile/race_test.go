//go:build race

package mobile

const raceEnabled = true
