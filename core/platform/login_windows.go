//go:build windows

package platform

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"golang.org/x/sys/windows/registry"
)

// Written but never run here: the tests run on Linux only, and Windows
// is cross-vetted (make vet-targets).

// runKey is the per-user Run key: Explorer starts each of its values'
// command lines at logon.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// runValue names the item's value: the app ID, so one app has one.
func runValue(l LoginItem) string { return l.ID }

func loginItemEnabled(l LoginItem) (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		if errors.Is(err, registry.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("opening HKCU\\%s: %w", runKey, err)
	}
	defer k.Close()
	_, _, err = k.GetStringValue(runValue(l))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, registry.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("reading HKCU\\%s\\%s: %w", runKey, runValue(l), err)
}

func enableLoginItem(l LoginItem) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("opening HKCU\\%s: %w", runKey, err)
	}
	defer k.Close()
	if err := k.SetStringValue(runValue(l), windowsCommandLine(l.Command)); err != nil {
		return fmt.Errorf("writing HKCU\\%s\\%s: %w", runKey, runValue(l), err)
	}
	return nil
}

func disableLoginItem(l LoginItem) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		if errors.Is(err, registry.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("opening HKCU\\%s: %w", runKey, err)
	}
	defer k.Close()
	if err := k.DeleteValue(runValue(l)); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("removing HKCU\\%s\\%s: %w", runKey, runValue(l), err)
	}
	return nil
}

func loginItemWhere(l LoginItem) string {
	return `HKCU\` + runKey + `\` + runValue(l)
}

// windowsCommandLine joins a command as CommandLineToArgvW splits it:
// Go's syscall.EscapeArg quotes each argument that needs it.
func windowsCommandLine(cmd []string) string {
	var args []string
	for _, a := range cmd {
		args = append(args, syscall.EscapeArg(a))
	}
	return strings.Join(args, " ")
}
