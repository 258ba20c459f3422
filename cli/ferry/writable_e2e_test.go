//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/proc"
)

// unprivileged returns a command running ferry as a user that file
// permissions apply to: this user, or nobody (65534) when the test runs
// as root (in CI), since root writes into any folder. Its home is a
// folder of its own that it can write. The binary's folder is opened to
// others for that.
func unprivileged(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	bin := proc.Ferry(t)
	home := openDir(t, 0o777)
	cmd := exec.Command("env", append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), bin}, args...)...)
	if os.Geteuid() == 0 {
		if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	return cmd
}

// openDir returns a new folder with the given mode whose parent others
// can pass through.
func openDir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(filepath.Dir(d), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(d, 0o755) })
	return d
}

// TestReceiveUnwritableDir: a receiver whose folder it cannot write
// fails before it shows a code, with a plain message, a hint and its
// own kind; one whose folder becomes unwritable after it started tells
// the sender why it failed, in words, not "the peer failed" alone.
func TestReceiveUnwritableDir(t *testing.T) {
	t.Run("at start", func(t *testing.T) {
		dir := openDir(t, 0o555)
		stdout, stderr, code := proc.Run(t, unprivileged(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json", "--dir", dir))
		if code != exitUsage {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(stdout), &ev); err != nil {
			t.Fatalf("stdout is not one error event: %v\n%s", err, stdout)
		}
		if ev["event"] != "error" || ev["kind"] != "dir_not_writable" {
			t.Errorf("event %v, want an error of kind dir_not_writable", ev)
		}
		for _, want := range []string{"ferry: error: cannot save into " + dir + ": permission denied\n", "ferry: hint: ", "--dir"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if strings.Contains(stderr, "code") {
			t.Errorf("a code was shown before the check:\n%s", stderr)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("the probe left %v", ents)
		}
	})

	t.Run("mid-transfer", func(t *testing.T) {
		dir := openDir(t, 0o777)
		recv := proc.Start(t, unprivileged(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json", "--yes", "--code", "246810", "--dir", dir), true)
		ev := recv.Until("listening", 20*time.Second)
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		port, _ := ev["port"].(float64)
		addr := "127.0.0.1:" + strconv.Itoa(int(port))
		src := filepath.Join(t.TempDir(), "a.txt")
		os.WriteFile(src, []byte("hello"), 0o644)
		_, stderr, code := sendRun(t, "--to", addr, "--code", "246810", src)
		if code != exitFailure {
			t.Fatalf("send exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
		}
		if !strings.Contains(stderr, "cannot write into its destination folder (permission denied)") {
			t.Errorf("the sender was not told why:\n%s", stderr)
		}
		if c := recv.Exit(20 * time.Second); c != exitFailure {
			t.Errorf("receive exit %d, want %d; stderr:\n%s", c, exitFailure, recv.StderrText())
		}
	})
}
