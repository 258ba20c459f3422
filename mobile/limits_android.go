//go:build android

package mobile

// An Android build runs under the Android profile.
var buildProfile = androidProfile
