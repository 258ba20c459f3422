//go:build unix

package platform

import (
	"os"
	"syscall"
	"testing"
)

const fixWord = "chmod 600"

var noSpaceErrnos = []error{syscall.ENOSPC, syscall.EDQUOT}

func openToOthers(t *testing.T, path string) {
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
