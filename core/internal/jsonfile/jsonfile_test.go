package jsonfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestDescribe(t *testing.T) {
	type doc struct {
		Name    string `json:"name"`
		Version int    `json:"version"`
	}
	tests := []struct {
		in, want string
	}{
		{``, "line 1, column 1: the file ends in the middle of the JSON"},
		{"{\n  \"name\": \"a\",\n", "line 3, column 1: the file ends in the middle of the JSON"},
		{"{\n  \"name\": }", "line 2, column 11: invalid character '}'"},
		{"{\"version\": \"one\"}", `line 1, column 18: "version" is a string, want a number`},
		{"{\n\"name\": 7}", `line 2, column 10: "name" is a number, want a string`},
		{"[]", "found a array, want an object"},
	}
	for _, tt := range tests {
		var d doc
		err := json.Unmarshal([]byte(tt.in), &d)
		if err == nil {
			t.Fatalf("%q decoded", tt.in)
		}
		if got := Describe([]byte(tt.in), err); !strings.Contains(got, tt.want) {
			t.Errorf("Describe(%q) = %q, want it to contain %q", tt.in, got, tt.want)
		}
	}
}

func TestPosition(t *testing.T) {
	b := []byte("ab\ncd\n\nef")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{-5, 1, 1}, {0, 1, 1}, {1, 1, 2}, {3, 2, 1}, {4, 2, 2}, {6, 3, 1}, {7, 4, 1}, {100, 4, 3}} {
		if line, col := Position(b, tt.off); line != tt.line || col != tt.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
	if got := NextValue([]byte("1 ,\n 2"), 1); got != 5 {
		t.Errorf("NextValue = %d, want 5", got)
	}
}

// TestWriteAtomicUnderLock has goroutines each append a line under the
// lock, read-modify-write: with the lock and the atomic replacement
// every line survives and no temporary file is left.
func TestWriteAtomicUnderLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := Lock(path + ".lock")
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			b, _ := os.ReadFile(path)
			b = append(b, byte('a'+i), '\n')
			if err := WriteAtomic(path, b); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 20 {
		t.Errorf("%d lines survived, want 20:\n%s", n, b)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".f.json-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
