package testkit

import (
	"os"
	"os/exec"
	"testing"
)

// NeedTool returns the path of the program tool, which a test needs for
// why. As root it fails the test when tool is missing: make test runs as
// root in CI and installs every tool first (tests/install-deps.sh), so a
// missing one there is a broken machine, never a pass. Elsewhere it
// skips, saying what to install.
func NeedTool(t testing.TB, tool, why string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p
	}
	if os.Geteuid() == 0 {
		t.Fatalf("%s is not installed, and %s needs it: tests/install-deps.sh installs it", tool, why)
	}
	t.Skipf("not root (as root, where make test installs it, this fails): %s is not installed, and %s needs it", tool, why)
	return ""
}
