//go:build !js

package pick

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Files and folders that can be read pass; the first path that cannot
// be sent is named, with what is wrong with it.
func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	os.WriteFile(file, []byte("a"), 0o644)
	os.MkdirAll(filepath.Join(dir, "tree", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "tree", "sub", "b"), nil, 0o644)
	if err := CheckPaths([]string{file, filepath.Join(dir, "tree")}); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope")
	var pp *PathProblem
	if err := CheckPaths([]string{file, missing}); !errors.As(err, &pp) || !pp.Missing || pp.Path != missing {
		t.Errorf("missing: %v", err)
	}
	if runtime.GOOS != "windows" {
		if err := CheckPaths([]string{os.DevNull}); !errors.As(err, &pp) || !pp.NotRegular {
			t.Errorf("device: %v", err)
		}
	}
}
