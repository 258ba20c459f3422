package pick

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"
	"testing/iotest"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// memSource is a Source held in memory.
type memSource struct {
	data  []byte
	mtime time.Time
}

func (m memSource) Size() int64        { return int64(len(m.data)) }
func (m memSource) ModTime() time.Time { return m.mtime }
func (m memSource) Open() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(m.data)), nil
}

// Sources is a valid io/fs.FS of its files and the folders their paths
// imply; its items are the top-level names in the order first given.
func TestSources(t *testing.T) {
	mt := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	s := NewSources()
	for p, data := range map[string]string{"photos/2024/a.jpg": "aaa", "photos/b.jpg": "bb", "notes.txt": ""} {
		if err := s.Add(p, memSource{[]byte(data), mt}); err != nil {
			t.Fatal(p, err)
		}
	}
	if err := fstest.TestFS(s, "photos/2024/a.jpg", "photos/b.jpg", "notes.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("z", memSource{}); err != nil {
		t.Fatal(err)
	}
	var tops []string
	for _, it := range s.Items() {
		if it.FS != s {
			t.Errorf("item %q is not read from the Sources", it.Path)
		}
		tops = append(tops, it.Path)
	}
	if len(tops) != 3 || tops[2] != "z" {
		t.Errorf("items %q", tops)
	}
	fi, err := fs.Stat(s, "photos")
	if err != nil || !fi.IsDir() || fi.Mode() != fs.ModeDir|0o755 {
		t.Errorf("photos: %v %v", fi.Mode(), err)
	}
	fi, err = fs.Stat(s, "photos/2024/a.jpg")
	if err != nil || fi.Size() != 3 || fi.Mode() != 0o644 || !fi.ModTime().Equal(mt) || fi.Name() != "a.jpg" {
		t.Errorf("a.jpg: %v %v", fi, err)
	}
	f, err := s.Open("photos/2024/a.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(f, []byte("aaa")); err != nil {
		t.Error(err)
	}
	f.Close()
}

// A path that is no io/fs path, one given twice, and one under a file
// are refused with the error a front end words.
func TestSourcesAddRefuses(t *testing.T) {
	s := NewSources()
	if err := s.Add("a/b", memSource{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
	}{
		{".", ErrSourcePath}, {"", ErrSourcePath}, {"../x", ErrSourcePath}, {"/abs", ErrSourcePath}, {"a/", ErrSourcePath},
		{"a/b", ErrSourceTwice}, {"a", ErrSourceTwice}, {"a/b/c", ErrSourceTwice},
	} {
		if err := s.Add(c.path, memSource{}); !errors.Is(err, c.want) {
			t.Errorf("Add(%q) = %v, want %v", c.path, err, c.want)
		}
	}
}

// A Source's size and time are asked each time, so that a file that
// changes while it is sent is seen to.
func TestSourcesLive(t *testing.T) {
	m := &liveSource{size: 1}
	s := NewSources()
	s.Add("f", m)
	m.size = 2
	if fi, _ := fs.Stat(s, "f"); fi.Size() != 2 {
		t.Errorf("size %d, want the current 2", fi.Size())
	}
}

type liveSource struct{ size int64 }

func (l *liveSource) Size() int64                  { return l.size }
func (l *liveSource) ModTime() time.Time           { return time.Time{} }
func (l *liveSource) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nil)), nil }

// The history names a send by its paths on disk and whether a text goes;
// an item read through an FS names nothing.
func TestItemSources(t *testing.T) {
	fsys := NewSources()
	paths, text := ItemSources([]event.Item{{Path: "/a"}, {FS: fsys, Path: "b"}, {Path: "/c"}})
	if len(paths) != 2 || paths[0] != "/a" || paths[1] != "/c" || text {
		t.Errorf("files: %q %v", paths, text)
	}
	paths, text = ItemSources([]event.Item{{Text: "hi"}})
	if paths != nil || !text {
		t.Errorf("text: %q %v", paths, text)
	}
}
