//go:build !js

package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/place"
)

// A writable folder passes and keeps nothing of the probe; a missing one
// fails as itself; a folder of partial files that cannot take a file
// fails as that folder.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if where, err := CheckWritable(dir); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %v", left)
	}
	missing := filepath.Join(dir, "gone")
	if where, err := CheckWritable(missing); err == nil || where != missing {
		t.Errorf("missing folder: %s, %v", where, err)
	}
	// A read-only folder of partial files is found only when not root:
	// root writes there anyway.
	partial := filepath.Join(dir, place.PartialDir)
	if err := os.Mkdir(partial, 0o500); err != nil {
		t.Fatal(err)
	}
	where, err := CheckWritable(dir)
	if os.Geteuid() == 0 {
		if err != nil {
			t.Errorf("as root: %s, %v", where, err)
		}
		return
	}
	if err == nil || where != partial {
		t.Errorf("read-only partial folder: %s, %v", where, err)
	}
}
