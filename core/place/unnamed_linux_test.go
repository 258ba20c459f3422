package place

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openUnnamedTest opens a Dest where files without a name can be made
// and named, which every Linux file system that has O_TMPFILE allows a
// root process, and since Linux 6.10 any process: the test's own check
// says so, with unix calls and not this package's, and the Dest must
// then use them.
func openUnnamedTest(t *testing.T) (*Dest, string) {
	t.Helper()
	dir := t.TempDir()
	// As root (CI), on a file system that has O_TMPFILE (CI's TMPDIR is
	// ext4), it can always: there a refusal is a failure, not a skip.
	skip := t.Skipf
	if os.Geteuid() == 0 {
		skip = t.Fatalf
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY, 0o600)
	if err != nil {
		skip("%s has no files without a name (O_TMPFILE: %v)", dir, err)
	}
	err = unix.Linkat(fd, "", unix.AT_FDCWD, filepath.Join(dir, "probe"), unix.AT_EMPTY_PATH)
	unix.Close(fd)
	if err != nil {
		skip("this process cannot name a file without a name (linkat AT_EMPTY_PATH: %v): not root, and Linux before 6.10", err)
	}
	os.Remove(filepath.Join(dir, "probe"))
	return preparedDest(t, dir, false), dir
}

// preparedDest opens a Dest on dir, closed when the test ends, and
// prepares its partial folder, where files without a name are probed.
func preparedDest(t *testing.T, dir string, overwrite bool) *Dest {
	t.Helper()
	d, err := OpenDest(dir, overwrite, "peer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.PreparePartialDir(); err != nil {
		t.Fatal(err)
	}
	return d
}

// writeUnnamed makes a file without a name holding data for the entry
// path, offered with mode and when.
func writeUnnamed(t *testing.T, d *Dest, path, data string, mode os.FileMode, when time.Time) *Partial {
	t.Helper()
	f, err := d.OpenUnnamed(path, int64(len(data)), when, mode)
	if err != nil || f == nil {
		t.Fatalf("OpenUnnamed: %v, %v: want a file without a name", f, err)
	}
	if _, err := f.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestUnnamedPlaced: a file without a name, finished and placed, is
// there under its name with its bytes, mode and time, the partial
// folder holds nothing, and a taken name (a file, a link to a file
// outside) gives "name (1).ext" with what held the name untouched.
func TestUnnamedPlaced(t *testing.T) {
	d, dir := openUnnamedTest(t)
	outside := filepath.Join(t.TempDir(), "target")
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(dir, "taken.txt"), []byte("old"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.txt"))
	when := time.Date(2024, 3, 1, 12, 0, 0, 500, time.UTC)
	mask, err := d.createMask()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"new.txt", "new.txt"}, {"taken.txt", "taken (1).txt"}, {"link.txt", "link (1).txt"},
	} {
		f := writeUnnamed(t, d, c.name, "bytes of "+c.name, 0o640, when)
		if err := d.Finish(f, PartialDir, 0o640, when); err != nil {
			t.Fatal(err)
		}
		saved, replaced, err := d.Place(f, c.name)
		if err != nil || saved != c.want || replaced {
			t.Fatalf("%s placed as %q, replaced %v (%v); want %q", c.name, saved, replaced, err, c.want)
		}
		fi, err := os.Lstat(filepath.Join(dir, saved))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, saved)); string(b) != "bytes of "+c.name {
			t.Errorf("%s holds %q", saved, b)
		}
		if fi.Mode() != 0o640&^mask || !fi.ModTime().Equal(when) {
			t.Errorf("%s: mode %v, time %v; want %v, %v", saved, fi.Mode(), fi.ModTime(), 0o640&^mask, when)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "taken.txt")); string(b) != "old" {
		t.Errorf("taken.txt holds %q, want it untouched", b)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Errorf("the link's target holds %q, want it untouched", b)
	}
	if names, _ := os.ReadDir(filepath.Join(dir, PartialDir)); len(names) != 0 {
		t.Errorf("the partial folder holds %v, want nothing", names)
	}
}

// TestUnnamedStaysPartial: a file without a name closed unfinished, once
// bytes were written to it, is its entry's partial file (0600 unless the
// partial folder admits nobody else), where a resume looks for it; one
// closed before any byte, or discarded, leaves nothing.
func TestUnnamedStaysPartial(t *testing.T) {
	d, dir := openUnnamedTest(t)
	when := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	f := writeUnnamed(t, d, "a/kept.bin", "some bytes", 0o644, when)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	part := d.PartialName("a/kept.bin", int64(len("some bytes")), when)
	if b, err := os.ReadFile(filepath.Join(dir, part)); err != nil || string(b) != "some bytes" {
		t.Errorf("the partial file holds %q (%v), want the bytes written", b, err)
	}
	if got := d.PartialSize("a/kept.bin", int64(len("some bytes")), when); got != int64(len("some bytes")) {
		t.Errorf("PartialSize %d, want the bytes written", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, part)); err == nil && !d.partialPrivate && fi.Mode().Perm() != 0o600 {
		t.Errorf("the partial file's mode is %v in a partial folder others may enter, want 0600", fi.Mode())
	}

	empty, err := d.OpenUnnamed("b.bin", 5, when, 0o644)
	if err != nil || empty == nil {
		t.Fatal(empty, err)
	}
	empty.Close()
	writeUnnamed(t, d, "c.bin", "wrong", 0o644, when).Discard()
	if names, _ := os.ReadDir(filepath.Join(dir, PartialDir)); len(names) != 1 {
		t.Errorf("the partial folder holds %v, want the kept file alone", names)
	}
}

// TestUnnamedNotWithOverwrite: a Dest that may replace files makes every
// partial file with a name, since a link cannot replace one.
func TestUnnamedNotWithOverwrite(t *testing.T) {
	d := preparedDest(t, t.TempDir(), true)
	if f, err := d.OpenUnnamed("a", 1, time.Time{}, 0o644); f != nil || err != nil {
		t.Errorf("OpenUnnamed with overwrite: %v, %v; want nil", f, err)
	}
}

// TestProbeLeavesNothing: PreparePartialDir's check that files without
// a name work finds that they do where the test's own check did, and
// leaves nothing in the partial folder.
func TestProbeLeavesNothing(t *testing.T) {
	_, dir := openUnnamedTest(t) // skips where files without a name cannot be named
	d := preparedDest(t, dir, false)
	if !d.unnamed {
		t.Error("the probe found no files without a name where the test's own check did")
	}
	if names, _ := os.ReadDir(filepath.Join(dir, PartialDir)); len(names) != 0 {
		t.Errorf("the probe left %v in the partial folder", names)
	}
}
