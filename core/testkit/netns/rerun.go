package netns

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Rerun runs the calling test again, alone, as a child process in a
// network namespace of its own (unshare -n) where lo is up and carries
// addrs (CIDR, added with nodad so that they are usable at once), and
// reports the child's result; it returns true in the child, which then
// does the test's work. So a test can bind and dial from any address
// (an IPv6 /64, fe80:: with the zone lo) without touching the machine's
// interfaces. Needs root, unshare and ip; skips otherwise, saying why.
func Rerun(t *testing.T, addrs ...string) bool {
	t.Helper()
	if os.Getenv("FERRY_TEST_NETNS") == t.Name() {
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace (unshare -n); CI runs as root")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s for a network namespace (tests/install-deps.sh installs it): %v", tool, err)
		}
	}
	setup := []string{"ip link set lo up"}
	for _, a := range addrs {
		setup = append(setup, "ip addr add "+a+" dev lo nodad")
	}
	cmd := exec.Command("unshare", "-n", "sh", "-c", strings.Join(setup, " && ")+` && exec "$0" "$@"`,
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "FERRY_TEST_NETNS="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("in a network namespace:\n%s", out)
	if err != nil {
		t.Fatalf("the test in its network namespace: %v", err)
	}
	return false
}
