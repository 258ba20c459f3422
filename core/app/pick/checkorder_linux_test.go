//go:build linux

package pick

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestCheckNamesFirstProblem: on two goroutines, CheckPaths names the
// problem a walk in lexical order meets first, whichever goroutine found
// it, as on one: a file that cannot be read in an early folder before an
// unreadable file beside that folder, a folder that cannot be listed, a
// file deeper down, and one in each half of a long folder's listing, each
// in turn as those before it are made readable. As root, where permissions do not bind, the test runs itself
// again as nobody.
func TestCheckNamesFirstProblem(t *testing.T) {
	if dir := os.Getenv("FERRY_TEST_CHECK_ORDER"); dir != "" {
		checkOrder(t, dir)
		return
	}
	top := testkit.NobodyDir(t, "ferry-check-order-")
	tree := filepath.Join(top, "tree")
	for i := range 12 {
		sub := filepath.Join(tree, string(rune('a'+i)))
		for j := range 3 {
			if err := os.MkdirAll(filepath.Join(sub, fmt.Sprint(j)), 0o755); err != nil {
				t.Fatal(err)
			}
			for k := range 50 {
				if err := os.WriteFile(filepath.Join(sub, fmt.Sprint(j), fmt.Sprint(k)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for i := range 300 { // a long folder, which the helper takes half of
		if err := os.MkdirAll(filepath.Join(tree, "long"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, "long", fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"c/x", "d.txt", "k/y", "long/f100", "long/f250"} {
		if err := os.WriteFile(filepath.Join(tree, p), nil, 0o000); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(tree, p), 0o000); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(tree, "h"), 0o311); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		checkOrder(t, tree)
		return
	}
	// The whole tree is nobody's, so that the child can make the
	// problems go away one by one.
	if err := filepath.WalkDir(top, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, testkit.Nobody, testkit.Nobody)
	}); err != nil {
		t.Fatal(err)
	}
	testkit.RunAsNobody(t, top, "TestCheckNamesFirstProblem", "FERRY_TEST_CHECK_ORDER="+tree)
}

// checkOrder checks the tree TestCheckNamesFirstProblem made, as a user
// its modes bind.
func checkOrder(t *testing.T, dir string) {
	testkit.CheckGoroutines(t) // the helper ends with its check
	for _, p := range []string{"c/x", "d.txt", "h", "k/y", "long/f100", "long/f250"} {
		want := filepath.Join(dir, p)
		for run := range 30 {
			for _, helpers := range []int{0, 1} {
				var pp *PathProblem
				if err := checkTree(dir, helpers); !errors.As(err, &pp) || pp.Path != want {
					t.Fatalf("run %d, %d helpers: %v, want a problem with %s", run, helpers, err, want)
				}
			}
		}
		if err := os.Chmod(want, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
