package send

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/ferry-project/ferry/core/app/event"
)

// TestSendFromFSErrors: an FS item that cannot be sent says why.
func TestSendFromFSErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"album":       {Mode: fs.ModeDir | 0o755},
		"album/a.txt": {Data: []byte("hello from memory"), Mode: 0o644},
		"single.bin":  {Data: []byte("single"), Mode: 0o644},
	}
	for _, it := range []event.Item{
		{FS: fsys, Path: "/album"},
		{FS: fsys, Path: "album/../single.bin"},
		{FS: fsys, Path: "."},
		{FS: fsys, Path: "missing"},
		{FS: fsys, Path: "single.bin", Name: "two/names"},
		{Path: t.TempDir(), Name: `back\slash`},
	} {
		_, _, err := buildManifest([]event.Item{it})
		if err == nil {
			t.Errorf("%q: no error", it.Path)
		}
		t.Logf("%q: %v", it.Path, err)
	}
}
