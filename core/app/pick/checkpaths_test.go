//go:build !js

package pick

import (
	"errors"
	"fmt"
	"io/fs"
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

// A tree deeper than the folders a check keeps open is checked all
// the way down: below maxHeld each file is asked about by its path.
func TestCheckPathsDeepTree(t *testing.T) {
	dir := t.TempDir()
	p := dir
	for i := 0; i < maxHeld+6; i++ {
		p = filepath.Join(p, "d")
		if i%20 == 0 || i > maxHeld {
			os.MkdirAll(p, 0o755)
			os.WriteFile(filepath.Join(p, "f"), []byte("x"), 0o644)
		}
	}
	os.MkdirAll(p, 0o755)
	if err := CheckPaths([]string{dir}); err != nil {
		t.Fatal(err)
	}
	// A folder that vanished between the listing and the walk into it
	// is named, as a missing path is.
	gone := filepath.Join(dir, "d", "d")
	os.Symlink("nowhere", filepath.Join(dir, "d", "link"))
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	if err := CheckPaths([]string{dir}); err != nil {
		t.Fatalf("a tree with a dangling link inside: %v", err)
	}
}

// BenchmarkCheckFolder: the walk with folders held open, on one goroutine
// and on two, against a walk
// that asks about each file by its whole path (filepath.WalkDir and
// readable, as CheckPaths did before), on 2,000 files of a tree in
// TMPDIR; run the two in one process and read the ratio.
func BenchmarkCheckFolder(b *testing.B) {
	dir := b.TempDir()
	for i := range 20 {
		sub := filepath.Join(dir, "a", "b", string(rune('a'+i)))
		os.MkdirAll(sub, 0o755)
		for j := range 100 {
			os.WriteFile(filepath.Join(sub, "file"+string(rune('a'+j%26))+string(rune('a'+j/26))), nil, 0o644)
		}
	}
	for _, helpers := range []int{0, 1} {
		b.Run(fmt.Sprintf("held-%d-helpers", helpers), func(b *testing.B) {
			for b.Loop() {
				if err := checkTree(dir, helpers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("bypath", func(b *testing.B) {
		for b.Loop() {
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					err = readable(p)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
