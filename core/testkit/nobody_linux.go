package testkit

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Nobody is the user and group a test runs itself as where file modes
// must bind: root passes every permission check.
const Nobody = 65534

// RunAsNobody runs the calling test binary's test named test again, as
// Nobody, from a copy of the binary in dir (which nobody may need to
// reach: the original is in a folder of root's), with env added and
// TMPDIR set to dir. dir is opened to everyone first, since the child's
// own temporary folders go there. The test fails with the child's
// output if the child fails or does not run test.
func RunAsNobody(t testing.TB, dir, test string, env ...string) {
	t.Helper()
	exe := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := copyExecutable(exe, os.Args[0]); err != nil {
		t.Fatalf("copying the test binary for nobody: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(append(os.Environ(), env...), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
	// A name that matches no test passes too: say so, not pass.
	if !bytes.Contains(out, []byte("--- PASS: "+test+" ")) {
		t.Fatalf("%s as nobody did not run:\n%s", test, out)
	}
}

// NobodyDir is a new folder for a test that RunAsNobody runs, removed
// when t ends. It is not under t.TempDir, whose parent is the test's
// and closed to others, but in the system's temporary folder, and open
// to search.
func NobodyDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyExecutable(dst, src string) error {
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
