package place

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestKeptFolders: files placed into folders in turn (a, b, a again,
// the destination itself) each land in their own folder, with the mode
// and time asked for, a name taken in a kept folder (by a file placed
// there meanwhile by someone else) still gives "name (1)", a partial
// file left by an earlier try is written over from its start, and a
// kept folder removed and made again meanwhile gets its files in the
// new folder.
func TestKeptFolders(t *testing.T) {
	d, dir := openTest(t, false)
	for _, f := range []string{"a", "b"} {
		if _, err := d.Mkdir(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	when := time.Date(2024, 3, 1, 12, 0, 0, 500, time.UTC)
	place := func(path, data string) string {
		t.Helper()
		p := d.PartialName(path, int64(len(data)), when)
		f, err := d.OpenPartial(p, 0, 0o640)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
		if err := d.Finish(f, p, 0o640, when); err != nil {
			t.Fatal(err)
		}
		saved, _, err := d.Place(f, path)
		if err != nil {
			t.Fatal(err)
		}
		return saved
	}
	for _, c := range []struct{ path, data, want string }{
		{"a/1.txt", "a1", "a/1.txt"},
		{"b/1.txt", "b1", "b/1.txt"},
		{"a/2.txt", "a2", "a/2.txt"},
		{"top.txt", "top", "top.txt"},
	} {
		if got := place(c.path, c.data); got != c.want {
			t.Fatalf("%s saved as %q, want %q", c.path, got, c.want)
		}
	}
	// Someone else takes a name in the folder kept open now.
	os.WriteFile(filepath.Join(dir, "a", "3.txt"), []byte("theirs"), 0o644)
	if got := place("a/3.txt", "mine"); got != "a/3 (1).txt" {
		t.Fatalf("a/3.txt saved as %q, want \"a/3 (1).txt\"", got)
	}
	// An earlier try left a longer partial file under the same name.
	p := d.PartialName("b/2.txt", 2, when)
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte("stale bytes"), 0o600)
	if got := place("b/2.txt", "b2"); got != "b/2.txt" {
		t.Fatalf("b/2.txt saved as %q", got)
	}
	// The kept folder is removed and made again under its name.
	if got := place("b/3.txt", "b3"); got != "b/3.txt" {
		t.Fatalf("b/3.txt saved as %q", got)
	}
	if err := os.RemoveAll(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := place("b/1.txt", "b1"); got != "b/1.txt" {
		t.Fatalf("b/1.txt in the folder made again saved as %q", got)
	}
	if got := place("b/2.txt", "b2"); got != "b/2.txt" {
		t.Fatalf("b/2.txt in the folder made again saved as %q", got)
	}
	for name, want := range map[string]string{"a/1.txt": "a1", "a/2.txt": "a2", "b/1.txt": "b1", "b/2.txt": "b2",
		"top.txt": "top", "a/3.txt": "theirs", "a/3 (1).txt": "mine"} {
		full := filepath.Join(dir, filepath.FromSlash(name))
		b, err := os.ReadFile(full)
		if err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", name, b, err, want)
			continue
		}
		if name == "a/3.txt" {
			continue
		}
		fi, err := os.Stat(full)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(when) {
			t.Errorf("%s: time %v, want %v", name, fi.ModTime(), when)
		}
		if mask, _ := d.createMask(); fi.Mode().Perm() != 0o640&^mask {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), 0o640&^mask)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, PartialDir)); len(left) != 0 {
		t.Errorf("partial files left behind: %v", left)
	}
}
