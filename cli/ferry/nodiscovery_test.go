package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestE2EFallbackLineWorks: the receiver's "without discovery" line is a
// command that works as printed, with mDNS off on both ends.
func TestE2EFallbackLineWorks(t *testing.T) {
	cmd := ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "454545", "--yes", "--dir", t.TempDir())
	recv := proc.Start(t, cmd, false)
	const intro = "ferry: without discovery, on the other device: ferry send --to "
	recv.Stderr.WaitFor(t, intro, 20*time.Second)
	s := recv.Stderr.String()
	fields := strings.Fields(s[strings.Index(s, intro)+len(intro):])
	if len(fields) < 2 || fields[1] != "PATH" {
		t.Fatalf("fallback line: %q", s)
	}
	if _, stderr, code := sendRun(t, "--to", fields[0], "--code", "454545", "--quiet", "--text", "no mdns needed"); code != 0 {
		t.Fatalf("send --to %s, as printed: exit %d: %s", fields[0], code, stderr)
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Fatalf("receive exit %d; stderr:\n%s", c, recv.StderrText())
	}
	if got := recv.Stdout.String(); got != "no mdns needed\n" {
		t.Errorf("receiver stdout %q", got)
	}
	checkStderr(t, recv.StderrText(), false)
}

// TestE2EPeersNothingFoundHints: a browse that finds nothing says what to
// check. It runs in a network namespace of its own (unshare -n), where
// only lo exists and nobody advertises, so it cannot find anything and
// nothing it sends leaves the namespace.
func TestE2EPeersNothingFoundHints(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace (unshare -n); CI runs as root")
	}
	testkit.NeedTool(t, "unshare", "a network namespace without multicast")
	cmd := exec.Command("unshare", "-n", "sh", "-c", `ip link set lo up && exec "$0" peers --iface lo --timeout 300ms`, proc.Ferry(t))
	stdout, stderr, code := proc.Run(t, cmd)
	if code != 0 || stdout != "" {
		t.Fatalf("peers: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"no receivers found", "ferry send --to HOST:PORT", "Firewall", "Public", "Local Network", "client isolation", "--iface"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	checkStderr(t, stderr, false)
}
