//go:build !js

package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/adrg/xdg"
)

// appName is ferry's folder under the per-user config base.
const appName = "ferry"

// xdgMu serializes xdg.Reload and the reads after it: the library keeps
// its answers in package variables that Reload rewrites.
var xdgMu sync.Mutex

// reload re-reads the environment into xdg's variables and returns what
// read asks for, under the lock.
func reload[T any](read func() T) T {
	xdgMu.Lock()
	defer xdgMu.Unlock()
	xdg.Reload()
	return read()
}

// ConfigDir returns ferry's per-user folder for its key and trust file
// (see the package doc's Folders). It does not create it.
func ConfigDir() (string, error) {
	// Without a home, xdg would answer a folder under "/": only an
	// explicit $XDG_CONFIG_HOME does without one.
	if _, err := os.UserHomeDir(); err != nil && os.Getenv("XDG_CONFIG_HOME") == "" {
		return "", fmt.Errorf("finding the config folder: %w", err)
	}
	base := reload(func() string { return xdg.ConfigHome })
	if base == "" || !filepath.IsAbs(base) {
		return "", fmt.Errorf("finding the config folder: no absolute path for it (got %q)", base)
	}
	return filepath.Join(base, appName), nil
}

// DownloadDir returns this user's download folder (see the package doc's
// Folders). It does not create it.
func DownloadDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the download folder: %w", err)
	}
	dir := reload(func() string { return xdg.UserDirs.Download })
	fallback := filepath.Join(home, "Downloads")
	if dir == "" || !filepath.IsAbs(dir) || filepath.Clean(dir) == filepath.Clean(home) {
		return fallback, nil
	}
	return filepath.Clean(dir), nil
}
