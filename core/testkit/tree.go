package testkit

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFile writes data to path with mode 0644, making its parent
// folders (0755) as needed.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteTree writes files under root: each key is a slash-separated path
// relative to root, each value its contents, written with perm. A key
// ending in "/" is an (empty) folder. Folders are made 0755.
func WriteTree(t testing.TB, root string, perm os.FileMode, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), perm); err != nil {
			t.Fatal(err)
		}
	}
}

// Compare says what SameTree checks beyond names, kinds and bytes.
type Compare struct {
	// Modes: a file's permission bits are the source's; a folder's are
	// the source's with the owner's rwx added (a receiver must be able
	// to write into a folder it made).
	Modes bool
	// FileTimes and FolderTimes: the modification time is the source's.
	FileTimes, FolderTimes bool
	// Subset: dst may hold more than src (only src's entries are checked).
	Subset bool
}

// Exact is everything a transfer keeps: names, bytes, modes and times.
var Exact = Compare{Modes: true, FileTimes: true, FolderTimes: true}

// PartialFolder is the hidden folder in which a receiver keeps partial
// files (core/transfer's partialDir; its tests check the two agree).
const PartialFolder = ".ferry-partial"

// partial reports whether rel is inside a receiver's partial folder,
// which SameTree passes over.
func partial(rel string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first == PartialFolder
}

// FinalNames lists the names in dir, a receiver's destination, but for
// its partial folder: what it holds under final names.
func FinalNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != PartialFolder {
			names = append(names, e.Name())
		}
	}
	return names
}

// SameTree reports through t.Errorf every way the tree at dst differs
// from the one at src: an entry missing or (unless c.Subset) extra, a
// file where a folder should be, different bytes, and what c asks for.
// src and dst name the two roots; a receiver's partial folder in dst is
// passed over. It returns the number of files it compared, so a caller
// can check that the comparison was not empty.
func SameTree(t testing.TB, src, dst string, c Compare) int {
	t.Helper()
	files := 0
	seen := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		seen[rel] = true
		si, err := d.Info()
		if err != nil {
			return err
		}
		di, err := os.Lstat(filepath.Join(dst, rel))
		if err != nil {
			t.Errorf("%s: missing from the copy: %v", rel, err)
			return nil
		}
		if si.IsDir() != di.IsDir() {
			t.Errorf("%s: a folder on one side, a file on the other", rel)
			return nil
		}
		if (si.IsDir() && c.FolderTimes || !si.IsDir() && c.FileTimes) && !si.ModTime().Equal(di.ModTime()) {
			t.Errorf("%s: time %v, want %v", rel, di.ModTime(), si.ModTime())
		}
		if si.IsDir() {
			if want := si.Mode().Perm() | 0o700; c.Modes && di.Mode().Perm() != want {
				t.Errorf("%s: folder mode %v, want %v", rel, di.Mode().Perm(), want)
			}
			return nil
		}
		files++
		if c.Modes && di.Mode().Perm() != si.Mode().Perm() {
			t.Errorf("%s: mode %v, want %v", rel, di.Mode().Perm(), si.Mode().Perm())
		}
		a, errA := os.ReadFile(p)
		b, errB := os.ReadFile(filepath.Join(dst, rel))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: content differs (%d vs %d bytes; %v, %v)", rel, len(a), len(b), errA, errB)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", src, err)
	}
	if c.Subset {
		return files
	}
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Errorf("reading the copy: %v", err)
			return nil
		}
		rel, _ := filepath.Rel(dst, p)
		if partial(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !seen[rel] {
			t.Errorf("%s: in the copy but not in the source", rel)
		}
		return nil
	})
	return files
}
