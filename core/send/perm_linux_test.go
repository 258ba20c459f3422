package send

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
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
	// Not t.TempDir: its parent folder is the test's, which nobody may
	// not search.
	top, err := os.MkdirTemp("", "ferry-search-only-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
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
	// The test binary, where nobody may run it.
	exe := filepath.Join(top, "send.test")
	if err := copyFile(exe, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSearchOnlyParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FERRY_TEST_SEARCH_ONLY="+tree, "TMPDIR="+top)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := os.Chmod(top, 0o777); err != nil { // nobody's t.TempDir goes here
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
