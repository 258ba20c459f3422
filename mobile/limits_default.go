//go:build !ios && !android

package mobile

// Any other build (a development machine, where the tests run) takes the
// strictest profile, so that what passes here passes on a phone.
var buildProfile = iosProfile
