package place

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func openTest(t *testing.T, overwrite bool) (*Dest, string) {
	t.Helper()
	dir := t.TempDir()
	d, err := OpenDest(dir, overwrite, "peer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, dir
}

// writePartial writes data as the partial file of path and finishes it.
func writePartial(t *testing.T, d *Dest, path, data string) *Partial {
	t.Helper()
	p := d.PartialName(path, int64(len(data)), time.Time{})
	f, err := d.OpenPartial(p, 0, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(f, p, 0o644, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPlaceNeverOverwrites: without overwrite a taken name gives
// "name (n).ext", and the file there is untouched; with it, a file of
// exactly that name is replaced, and a folder never is.
func TestPlaceNeverOverwrites(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		d, dir := openTest(t, overwrite)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old"), 0o644)
		os.Mkdir(filepath.Join(dir, "d.txt"), 0o755)
		saved, replaced, err := d.Place(writePartial(t, d, "a.txt", "new"), "a.txt")
		want, wantReplaced, wantOld := "a (1).txt", false, "old"
		if overwrite {
			want, wantReplaced, wantOld = "a.txt", true, "new"
		}
		if err != nil || saved != want || replaced != wantReplaced {
			t.Errorf("overwrite %v: saved as %q, replaced %v (%v); want %q, %v", overwrite, saved, replaced, err, want, wantReplaced)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != wantOld {
			t.Errorf("overwrite %v: a.txt holds %q, want %q", overwrite, b, wantOld)
		}
		if saved, _, err := d.Place(writePartial(t, d, "d.txt", "x"), "d.txt"); err != nil || saved != "d (1).txt" {
			t.Errorf("overwrite %v: over a folder saved as %q (%v), want \"d (1).txt\"", overwrite, saved, err)
		}
	}
}

// TestMapTops: a folder merges into a folder of its name, moves to
// "name (1)" when a file holds the name, and is refused at a symlink.
func TestMapTops(t *testing.T) {
	d, dir := openTest(t, false)
	os.Mkdir(filepath.Join(dir, "merge"), 0o755)
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	tops, err := d.MapTops([]string{"merge", "merge/sub", "file", "file/sub", "new"})
	if err != nil || len(tops) != 1 || tops["file"] != "file (1)" {
		t.Fatalf("tops %v (%v), want only file to file (1)", tops, err)
	}
	if got := FinalPath("file/sub/x", tops); got != "file (1)/sub/x" {
		t.Errorf("FinalPath = %q", got)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "link")); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("platform: a symlink on Windows needs a privilege this account may lack: %v", err)
		}
		t.Fatal(err)
	}
	if _, err := d.MapTops([]string{"link"}); !errors.Is(err, ErrRefusedPath) {
		t.Errorf("a symlink where a folder goes: %v, want ErrRefusedPath", err)
	}
}

// TestPartialInTheWay: something that is not Ferry's where the partial
// folder or a partial file goes is refused, in words for this device
// only (InTheWay).
func TestPartialInTheWay(t *testing.T) {
	d, dir := openTest(t, false)
	p := d.PartialName("x", 1, time.Time{})
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.OpenPartial(p, 0, 0o644); !errors.Is(err, ErrRefusedPath) || !InTheWay(err) {
		t.Errorf("a folder at the partial file: %v, want ErrRefusedPath and InTheWay", err)
	}
	d2, dir2 := openTest(t, false)
	os.WriteFile(filepath.Join(dir2, PartialDir), nil, 0o644)
	if _, err := d2.OpenPartial(d2.SpareName(), 0, 0o644); !errors.Is(err, ErrRefusedPath) || !InTheWay(err) {
		t.Errorf("a file at the partial folder: %v, want ErrRefusedPath and InTheWay", err)
	}
}

// TestPartialName: only the same file (path, size, time) from the same
// peer has the same partial file.
func TestPartialName(t *testing.T) {
	d, _ := openTest(t, false)
	other, err := OpenDest(t.TempDir(), false, "another peer")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	at := time.Unix(1700000000, 5)
	base := d.PartialName("a", 1, at)
	for name, p := range map[string]string{
		"path": d.PartialName("b", 1, at), "size": d.PartialName("a", 2, at),
		"time": d.PartialName("a", 1, at.Add(1)), "peer": other.PartialName("a", 1, at),
	} {
		if p == base {
			t.Errorf("another %s, the same partial file %q", name, p)
		}
	}
	if d.PartialName("a", 1, at) != base || filepath.Dir(base) != PartialDir {
		t.Errorf("partial file %q is not stable or not in %s", base, PartialDir)
	}
}

// TestPartialSize: a later transfer finds an offered file's partial
// file, by its size, and answers -1 for a file without one, whether the
// partial folder is missing, empty or holds other files.
func TestPartialSize(t *testing.T) {
	d, dir := openTest(t, false)
	when := time.Date(2024, 3, 1, 12, 0, 0, 500, time.UTC)
	if n := d.PartialSize("a.txt", 5, when); n != -1 {
		t.Fatalf("no partial folder: PartialSize = %d, want -1", n)
	}
	if _, err := d.createMask(); err != nil { // makes the partial folder
		t.Fatal(err)
	}
	later := func() *Dest {
		t.Helper()
		d, err := OpenDest(dir, false, "peer")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	if n := later().PartialSize("a.txt", 5, when); n != -1 {
		t.Fatalf("empty partial folder: PartialSize = %d, want -1", n)
	}
	p := d.PartialName("a.txt", 5, when)
	f, err := d.OpenPartial(p, 0, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	d2 := later()
	for _, c := range []struct {
		path string
		size int64
		want int64
	}{{"a.txt", 5, 3}, {"b.txt", 5, -1}, {"a.txt", 6, -1}, {"a.txt", 5, 3}} {
		if n := d2.PartialSize(c.path, c.size, when); n != c.want {
			t.Errorf("PartialSize(%q, %d) = %d, want %d", c.path, c.size, n, c.want)
		}
	}
}

// TestPartialModeKeepsOthersOut: an unverified partial file is nobody
// else's to read. In a partial folder of this user's that admits nobody
// else it may have its own mode from the start (a mode that leaves the
// owner reading and writing it); in one that admits others it is 0600,
// and so it is in another user's folder (which root can write in), and a
// mode without the owner's read and write is given only by Finish.
// Either way the finished file has the offered mode less the mask.
func TestPartialModeKeepsOthersOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("windows: no Unix modes")
	}
	for _, c := range []struct {
		folder, mode, early fs.FileMode
		nobodys             bool // the folder is another user's: only root can write in it
	}{
		{0o700, 0o644, 0o644, false},
		{0o700, 0o444, 0o600, false},
		{0o755, 0o644, 0o600, false},
		{0o700, 0o644, 0o600, true},
	} {
		if c.nobodys && os.Geteuid() != 0 {
			continue
		}
		d, dir := openTest(t, false)
		mask, err := d.createMask() // makes the partial folder
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, PartialDir), c.folder); err != nil {
			t.Fatal(err)
		}
		if c.nobodys {
			if err := os.Chown(filepath.Join(dir, PartialDir), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		d.Close()
		if d, err = OpenDest(dir, false, "peer"); err != nil {
			t.Fatal(err)
		}
		p := d.PartialName("a.txt", 1, time.Time{})
		f, err := d.OpenPartial(p, 0, c.mode)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		want := c.early &^ mask
		if runtime.GOOS != "linux" {
			want = 0o600 &^ mask // created the general way, always 0600
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("folder %o, mode %o: partial file created %o, want %o", c.folder, c.mode, got, want)
		}
		if err := d.Finish(f, p, c.mode, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if fi, err = os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
		if got, want := fi.Mode().Perm(), c.mode&^mask; got != want {
			t.Errorf("folder %o, mode %o: finished %o, want %o", c.folder, c.mode, got, want)
		}
		d.Close()
	}
}
