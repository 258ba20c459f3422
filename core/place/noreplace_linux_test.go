package place

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// renameNoReplace is the claim where a file system has no hard links
// (FAT, exFAT under the kernel's drivers): onto a taken name it fails
// with fs.ErrExist and leaves both files as they were; onto a free one,
// in another folder of the root, it moves the file.
func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"part/new": "new", "photo.jpg": "old"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := renameNoReplace(root, "part/new", "photo.jpg"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("onto a taken name: %v, want fs.ErrExist", err)
	}
	for name, want := range map[string]string{"part/new": "new", "photo.jpg": "old"} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(b) != want {
			t.Fatalf("%s after the refused rename: %q, %v; want %q", name, b, err, want)
		}
	}
	if err := renameNoReplace(root, "part/new", "photo (1).jpg"); err != nil {
		t.Fatalf("onto a free name: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "photo (1).jpg")); err != nil || string(b) != "new" {
		t.Fatalf("photo (1).jpg: %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "part", "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the partial file is still there: %v", err)
	}
}
