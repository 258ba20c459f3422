package ui

import (
	"os"
	"path/filepath"
)

// selItem is one file or folder the person picked to send.
type selItem struct {
	Path     string
	Name     string
	Dir      bool
	Size     int64 // bytes; for a folder, of every file under it
	Files    int   // files under a folder
	Counting bool  // a folder whose size is still being counted
	Err      error // the path can't be read

	// Text is a text entry's content, when Path is empty (clipboard.go).
	Text string
}

// selection is the list of things to send, in the order they were added.
// It is touched only on the UI goroutine.
type selection struct {
	items []*selItem
}

// add appends the paths not already selected and returns the new items.
// Files are measured here (one stat each); folders come back with Counting
// set, for the caller to measure off the UI goroutine (pick.MeasureFolder).
func (s *selection) add(paths ...string) []*selItem {
	var added []*selItem
	for _, p := range paths {
		p = filepath.Clean(p)
		if s.has(p) {
			continue
		}
		it := &selItem{Path: p, Name: filepath.Base(p)}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			it.Err = err
		case fi.IsDir():
			it.Dir, it.Counting = true, true
		default:
			it.Size, it.Files = fi.Size(), 1
		}
		s.items = append(s.items, it)
		added = append(added, it)
	}
	return added
}

func (s *selection) has(path string) bool {
	for _, it := range s.items {
		if it.Path == path {
			return true
		}
	}
	return false
}

func (s *selection) remove(i int) {
	if i < 0 || i >= len(s.items) {
		return
	}
	s.items = append(s.items[:i], s.items[i+1:]...)
}

func (s *selection) clear() { s.items = nil }

// totals sums the selection. counting is true while a folder is still
// being measured, so the total shown is a lower bound.
func (s *selection) totals() (bytes int64, files int, counting bool) {
	for _, it := range s.items {
		bytes += it.Size
		files += it.Files
		counting = counting || it.Counting
	}
	return
}

// paths returns what to send.
func (s *selection) paths() []string {
	out := make([]string, 0, len(s.items))
	for _, it := range s.items {
		out = append(out, it.Path)
	}
	return out
}
