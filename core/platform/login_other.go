//go:build !unix && !windows

package platform

import (
	"errors"
	"runtime"
)

// Elsewhere (js/wasm in a browser, wasip1, plan9) nothing starts at login.
var errNoLoginItems = errors.New("starting at login is not supported on " + runtime.GOOS)

func loginItemEnabled(LoginItem) (bool, error) { return false, nil }
func enableLoginItem(LoginItem) error          { return errNoLoginItems }
func disableLoginItem(LoginItem) error         { return nil }
func loginItemWhere(LoginItem) string          { return "" }
