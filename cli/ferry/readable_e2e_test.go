//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/tests/proc"
)

// TestSendUnreadable: a file that the sending user may not read, alone
// or deep in a folder, is refused as a usage error before anything
// connects (nothing listens at the address), in today's words; a readable
// folder passes the check and fails only at the connection.
func TestSendUnreadable(t *testing.T) {
	dir := openDir(t, 0o755)
	deep := filepath.Join(dir, "folder", "deeper")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{filepath.Join(dir, "folder", "ok.txt"), filepath.Join(deep, "secret.txt"), filepath.Join(dir, "alone.txt")} {
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{filepath.Join(deep, "secret.txt"), filepath.Join(dir, "alone.txt")} {
		if err := os.Chmod(name, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ arg, bad string }{
		{filepath.Join(dir, "alone.txt"), filepath.Join(dir, "alone.txt")},
		{filepath.Join(dir, "folder"), filepath.Join(deep, "secret.txt")},
	} {
		_, stderr, code := proc.Run(t, unprivileged(t, "send", "--to", "127.0.0.1:9", "--code", "123456", c.arg))
		if code != exitUsage {
			t.Errorf("send %s: exit %d, want %d; stderr:\n%s", c.arg, code, exitUsage, stderr)
		}
		if want := "ferry: error: cannot read " + c.bad + ": permission denied\n"; !strings.Contains(stderr, want) {
			t.Errorf("send %s: stderr lacks %q:\n%s", c.arg, want, stderr)
		}
		if !strings.Contains(stderr, "ferry: hint: nothing was sent\n") {
			t.Errorf("send %s: no hint:\n%s", c.arg, stderr)
		}
	}
	if err := os.Chmod(filepath.Join(deep, "secret.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := proc.Run(t, unprivileged(t, "send", "--to", "127.0.0.1:9", "--code", "123456", filepath.Join(dir, "folder")))
	if code == exitUsage || strings.Contains(stderr, "cannot read") {
		t.Errorf("a readable folder was refused: exit %d; stderr:\n%s", code, stderr)
	}
}
