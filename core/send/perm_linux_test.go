package send

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/testkit"
)

// TestSearchOnlyParent: an item whose parent folder may be searched but
// not read (a home folder of mode 0711, seen by another user) is sent,
// as it was when each file was opened by its whole path: the folders
// sendSmall holds are opened to search them, not to list them. As root,
// where permissions do not bind, the test runs itself again as nobody.
func TestSearchOnlyParent(t *testing.T) {
	if dir := os.Getenv("FERRY_TEST_SEARCH_ONLY"); dir != "" {
		s, _ := newTestSender(t, []event.Item{{Path: dir}}, false)
		if err := sendAll(s); err != nil {
			t.Fatal(err)
		}
		return
	}
	top := testkit.NobodyDir(t, "ferry-search-only-")
	tree := filepath.Join(top, "home", "tree")
	if err := os.MkdirAll(filepath.Join(tree, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "sub/b"} {
		if err := os.WriteFile(filepath.Join(tree, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(top, "home"), 0o111); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(top, "home"), 0o755) // so that the cleanup can remove it
	if os.Geteuid() != 0 {
		s, _ := newTestSender(t, []event.Item{{Path: tree}}, false)
		if err := sendAll(s); err != nil {
			t.Fatal(err)
		}
		return
	}
	testkit.RunAsNobody(t, top, "TestSearchOnlyParent", "FERRY_TEST_SEARCH_ONLY="+tree)
}
