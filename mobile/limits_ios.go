//go:build ios

package mobile

// An iOS build (GOOS=ios, which gomobile uses for iphoneos, simulator and
// Mac Catalyst alike) runs under the iOS profile.
var buildProfile = iosProfile
