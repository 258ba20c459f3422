//go:build unix

package platform

import (
	"fmt"
	"os"
	"path/filepath"
)

// ReplaceFile renames from over to, both in one folder, and syncs the
// folder so that the rename itself survives a crash. The caller has
// synced from's contents.
func ReplaceFile(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(to))
	if err != nil {
		return fmt.Errorf("syncing the folder of %s: %w", to, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing the folder of %s: %w", to, err)
	}
	return nil
}
