//go:build android

package memprofile

// Build is the build's profile: an Android build runs under the Android
// profile.
var Build = Android
