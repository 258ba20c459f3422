//go:build !js

package pick

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A folder's regular files are counted, symlinks not followed; an ended
// context stops the walk.
func TestMeasureFolder(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "x"), make([]byte, 10), 0o644)
	os.WriteFile(filepath.Join(root, "a", "b", "y"), make([]byte, 5), 0o644)
	big := filepath.Join(t.TempDir(), "big")
	os.WriteFile(big, make([]byte, 1000), 0o644)
	os.Symlink(big, filepath.Join(root, "link"))
	n, files, err := MeasureFolder(context.Background(), root)
	if err != nil || n != 15 || files != 2 {
		t.Errorf("got %d bytes in %d files, %v; want 15 in 2", n, files, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := MeasureFolder(ctx, root); !errors.Is(err, context.Canceled) {
		t.Errorf("ended context: %v", err)
	}
}
