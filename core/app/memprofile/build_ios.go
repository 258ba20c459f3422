//go:build ios

package memprofile

// Build is the build's profile: an iOS build (GOOS=ios, which gomobile
// uses for iphoneos, simulator and Mac Catalyst alike) runs under the iOS
// profile.
var Build = IOS
