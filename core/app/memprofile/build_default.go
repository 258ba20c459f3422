//go:build !ios && !android

package memprofile

// Build is the build's profile: any other build (a development machine,
// where the tests run) takes the strictest, so that what passes here
// passes on a phone.
var Build = IOS
