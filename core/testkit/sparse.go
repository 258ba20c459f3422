package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// SparseFile makes a file of size zero bytes at path (its folder made as
// needed) that takes next to no disk space on file systems with holes,
// and returns path. Large-file tests use it to stream gigabytes without
// writing them.
func SparseFile(t testing.TB, path string, size int64) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
