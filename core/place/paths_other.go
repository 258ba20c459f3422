//go:build !windows

package place

// platformName adds to checkName what only this platform refuses:
// nothing beyond the rules of every platform. Windows refuses 8.3
// short-name shapes as well (paths_windows.go).
func platformName(c string) error { return nil }
