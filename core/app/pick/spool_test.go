//go:build !js

package pick

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// A spool makes one private folder on first use, names a taken name
// apart before its extension, and Close removes the folder; a later Save
// makes a new one.
func TestSpool(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := NewSpool("ferry-test-")
	p1, n, err := s.Save("image.png", iotest.OneByteReader(strings.NewReader("abc")))
	if err != nil || n != 3 {
		t.Fatalf("Save: %d, %v", n, err)
	}
	p2, _, _ := s.Save("image.png", strings.NewReader("d"))
	p3, _, _ := s.Save("image.png", strings.NewReader("e"))
	dir := filepath.Dir(p1)
	if filepath.Base(p1) != "image.png" || filepath.Base(p2) != "image-1.png" || filepath.Base(p3) != "image-2.png" ||
		filepath.Dir(p2) != dir || !strings.HasPrefix(filepath.Base(dir), "ferry-test-") {
		t.Errorf("paths %s %s %s", p1, p2, p3)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder %v, %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(p1); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(p1); string(b) != "abc" {
		t.Errorf("file holds %q", b)
	}
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the folder is left after Close: %v", err)
	}
	p4, _, err := s.Save("x", strings.NewReader(""))
	if err != nil || filepath.Dir(p4) == dir {
		t.Errorf("after Close: %s, %v", p4, err)
	}
	s.Close()
	s.Close()
}

// A read that fails is Save's error.
func TestSpoolReadError(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := NewSpool("ferry-test-")
	defer s.Close()
	if _, _, err := s.Save("f", iotest.ErrReader(iotest.ErrTimeout)); err != iotest.ErrTimeout {
		t.Errorf("Save = %v", err)
	}
}

// A clipboard's image is named after the time it was taken; a second in
// the same second gets a name of its own.
func TestSpoolClipboardImage(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := NewSpool("ferry-clipboard-")
	defer s.Close()
	at := time.Date(2026, 12, 3, 16, 40, 5, 0, time.Local)
	p1, err := s.ClipboardImage([]byte("png"), at)
	if err != nil || filepath.Base(p1) != "clipboard-20261203-164005.png" {
		t.Fatalf("%s, %v", p1, err)
	}
	if p2, _ := s.ClipboardImage([]byte("png2"), at); filepath.Base(p2) != "clipboard-20261203-164005-1.png" {
		t.Errorf("second: %s", p2)
	}
}
