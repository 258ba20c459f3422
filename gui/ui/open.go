package ui

import (
	"fmt"
	"os/exec"
	"runtime"
)

// OpenFolder shows a folder in the platform's file manager. It returns once
// the file manager has been started, not when it exits.
func OpenFolder(path string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", path)
	case "windows":
		cmd = exec.Command("explorer", path)
	default:
		cmd = exec.Command("xdg-open", path)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	// Reap the child so it doesn't linger as a zombie; its exit status
	// says nothing useful (explorer returns 1 on success).
	go cmd.Wait()
	return nil
}
