package send

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
)

// TestWalkDiskAsWalkFS: addDiskFolder lists a folder on the disk as
// fs.WalkDir over os.DirFS lists it (walkFS, the walk of every other
// file system): the same entries, in the same order, with the same
// sizes, modes and times and the same sources; links (to a file, to a
// folder) and a pipe left out; the item itself followed when it is a
// link.
func TestWalkDiskAsWalkFS(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "tree")
	old := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)
	for _, f := range []struct {
		p    string
		mode os.FileMode
		n    int
	}{
		{"B", 0o644, 3}, {"a", 0o600, 0}, {"a b/x", 0o640, 10}, {"é/ü", 0o755, 1},
		{"a.b/c/d/e", 0o644, 4096}, {"z/1", 0o644, 1}, {"z/10", 0o644, 2}, {"z/2", 0o644, 3},
	} {
		p := filepath.Join(dir, f.p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, f.n), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"empty", "shut"} {
		if err := os.Mkdir(filepath.Join(dir, p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(filepath.Join(dir, "a b"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("B", filepath.Join(dir, "link-file")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("z", filepath.Join(dir, "link-dir")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "z", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(top, "via-link")); err != nil {
		t.Fatal(err)
	}

	for _, it := range []event.Item{{Path: dir}, {Path: filepath.Join(top, "via-link")}, {Path: filepath.Join(dir, "a.b"), Name: "renamed"}} {
		root, err := openItem(it)
		if err != nil {
			t.Fatal(err)
		}
		var disk, walk manifest
		handled, err := disk.addDiskFolder(root)
		if !handled || err != nil {
			t.Fatalf("%s: addDiskFolder: %v, %v", it.Path, handled, err)
		}
		if err := walk.walkFS(root); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(disk.entries, walk.entries) {
			t.Errorf("%s: entries differ:\n disk %v\n walk %v", it.Path, disk.entries, walk.entries)
		}
		if !reflect.DeepEqual(disk.srcs, walk.srcs) {
			t.Errorf("%s: sources differ:\n disk %v\n walk %v", it.Path, disk.srcs, walk.srcs)
		}
		t.Logf("%s: %d entries", it.Path, len(disk.entries))
	}
}

// TestDeepTree: a tree deeper than the folders a send holds open is
// walked and sent as fs.WalkDir and sendEntry would, holding no more
// than maxHeld+1 folders at any time.
func TestDeepTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deep")
	p := dir
	for i := range maxHeld + 20 {
		p = filepath.Join(p, "d")
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "f"), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := openItem(event.Item{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	var disk, walk manifest
	if _, err := disk.addDiskFolder(root); err != nil {
		t.Fatal(err)
	}
	if err := walk.walkFS(root); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(disk.entries, walk.entries) || !reflect.DeepEqual(disk.srcs, walk.srcs) {
		t.Errorf("the walks differ: %d entries against %d", len(disk.entries), len(walk.entries))
	}

	items := []event.Item{{Path: dir}}
	fast, fastRec := newTestSender(t, items, false)
	slow, slowRec := newTestSender(t, items, true)
	for i, e := range fast.entries {
		if e.Kind == event.KindDir {
			continue
		}
		if err := fast.sendEntry(t.Context(), i, e, nil, nil); err != nil {
			t.Fatal(err)
		}
		if n := len(fast.dirs.fds); n > maxHeld+1 {
			t.Fatalf("after %s: %d folders held", fast.srcs[i].path, n)
		}
	}
	if err := sendAll(slow); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fastRec.Bytes(), slowRec.Bytes()) {
		t.Errorf("sendSmall sent %d bytes, sendEntry %d: not the same", fastRec.Len(), slowRec.Len())
	}
}

// TestWalkOnTwo: the walk on two goroutines gives the manifest the walk
// on one gives, and fs.WalkDir's, entry for entry, whichever folders (or
// half of a long folder's listing) the helper happened to take; and at
// the entry limit it stops with the same
// entries and error as fs.WalkDir does, wherever in the tree the limit
// falls (the manifest is filled up to a few entries below the limit).
func TestWalkOnTwo(t *testing.T) {
	testkit.CheckGoroutines(t) // the helper ends with its walk
	dir := filepath.Join(t.TempDir(), "tree")
	for i := range 12 {
		for j := range i % 4 {
			p := filepath.Join(dir, fmt.Sprintf("d%02d", i), fmt.Sprintf("s%d", j))
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			for k := range 3 + i {
				if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("f%d", k)), make([]byte, k), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%02d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), []byte{byte(i)}, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A long folder, which the helper takes half of, with folders in
	// both halves.
	for i := range 300 {
		p := filepath.Join(dir, "long", fmt.Sprintf("f%03d", i))
		if i%70 == 0 {
			p = filepath.Join(dir, "long", fmt.Sprintf("f%03d", i), "g")
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := openItem(event.Item{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	d := root.fsys.(diskDir)
	var want manifest
	if err := want.walkFS(root); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		for _, helpers := range []int{0, 1} {
			var got manifest
			if err := got.walkDiskItem(root, d, helpers); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.entries, want.entries) || !reflect.DeepEqual(got.srcs, want.srcs) {
				t.Fatalf("run %d, %d helpers: the walk differs from fs.WalkDir's (%d entries against %d)", i, helpers, len(got.entries), len(want.entries))
			}
		}
	}

	filler := make([]event.Entry, transfer.MaxEntries)
	fsrcs := make([]source, transfer.MaxEntries)
	for _, room := range []int{0, 1, 5, 17, 40, 200, 300, len(want.entries) - 1, len(want.entries)} {
		var ref manifest
		ref.entries, ref.srcs = filler[:transfer.MaxEntries-room:transfer.MaxEntries-room], fsrcs[:transfer.MaxEntries-room:transfer.MaxEntries-room]
		refErr := ref.walkFS(root)
		for i := range 5 {
			var got manifest
			got.entries, got.srcs = filler[:transfer.MaxEntries-room:transfer.MaxEntries-room], fsrcs[:transfer.MaxEntries-room:transfer.MaxEntries-room]
			_, err := got.addDiskFolder(root)
			if !errors.Is(err, errTooMany) && !(refErr == nil && err == nil) {
				t.Fatalf("room for %d, run %d: %v, fs.WalkDir: %v", room, i, err, refErr)
			}
			if !errors.Is(refErr, errTooMany) && refErr != nil {
				t.Fatalf("room for %d: fs.WalkDir: %v", room, refErr)
			}
			n := transfer.MaxEntries - room // the filler is the same
			if len(got.entries) != len(ref.entries) || !reflect.DeepEqual(got.entries[n:], ref.entries[n:]) || !reflect.DeepEqual(got.srcs[n:], ref.srcs[n:]) {
				t.Fatalf("room for %d, run %d: %d entries against fs.WalkDir's %d", room, i, len(got.entries), len(ref.entries))
			}
		}
	}
}
