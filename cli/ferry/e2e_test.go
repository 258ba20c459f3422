package main

// End-to-end tests of the real binary over loopback, run through
// tests/proc, which builds it once, on first use, so that running only the
// unit tests builds nothing. Nothing leaves loopback: every receiver runs
// with --no-mdns and --listen 127.0.0.1:0, every sender dials --to.

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proc.RemoveBinary()
	os.Exit(code)
}

// ferryCmd returns a command for the built binary; proc.Start and
// proc.Run make each process a device of its own.
func ferryCmd(t *testing.T, args ...string) *exec.Cmd {
	return exec.Command(proc.Ferry(t), args...)
}

// startReceiver starts "ferry receive" on loopback with the given extra flags
// and returns it with the port from its listening event.
func startReceiver(t *testing.T, dir, code string, extra ...string) (*proc.Proc, string) {
	t.Helper()
	args := append([]string{"receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", code, "--json", "--dir", dir}, extra...)
	r := proc.Start(t, ferryCmd(t, args...), true)
	ev := r.Until("listening", 20*time.Second)
	port, ok := ev["port"].(float64)
	if !ok || port == 0 || ev["code"] != code {
		t.Fatalf("listening event: %v", ev)
	}
	if addrs, ok := ev["addresses"].([]any); !ok || len(addrs) != 1 || addrs[0] != "127.0.0.1" {
		t.Errorf("listening addresses %v, want [127.0.0.1]", ev["addresses"])
	}
	return r, "127.0.0.1:" + strconv.Itoa(int(port))
}

// sendRun runs "ferry send" to the end and returns stdout, stderr and
// the exit code.
func sendRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	stdout, stderr, code := proc.Run(t, ferryCmd(t, append([]string{"send"}, args...)...))
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stack trace on stderr:\n%s", stderr)
	}
	return stdout, stderr, code
}

func writeTree(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	testkit.WriteTree(t, src, 0o644, map[string]string{
		"photos/2026/beach.raw": strings.Repeat("sand", 300000),
		"empty/":                "",
		"readme.txt":            "hello from ferry\n",
	})
	return src
}

func TestE2ESendReceive(t *testing.T) {
	dest := t.TempDir()
	recv, addr := startReceiver(t, dest, "123456", "--yes")
	src := writeTree(t)
	one := filepath.Join(t.TempDir(), "one.txt")
	os.WriteFile(one, []byte("just one"), 0o644)

	_, stderr, code := sendRun(t, "--to", addr, "--code", "123456", "--text", "a snippet", src, one)
	if code != exitOK {
		t.Fatalf("send exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "every file confirmed") {
		t.Errorf("sender did not report confirmation:\n%s", stderr)
	}
	checkStderr(t, stderr, false)
	var sawText, sawOffer, sawDone bool
	for ev := range recv.Events {
		switch ev["event"] {
		case "offer":
			sawOffer = true
		case "text":
			sawText = ev["text"] == "a snippet"
		case "done":
			sawDone = true
		}
	}
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("receive exit %d; stderr:\n%s", c, recv.StderrText())
	}
	if !sawOffer || !sawText || !sawDone {
		t.Errorf("receiver events: offer %v, text %v, done %v", sawOffer, sawText, sawDone)
	}
	for _, rel := range []string{"photos/2026/beach.raw", "readme.txt"} {
		want, _ := os.ReadFile(filepath.Join(src, rel))
		got, err := os.ReadFile(filepath.Join(dest, filepath.Base(src), rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s did not arrive intact: %v", rel, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dest, filepath.Base(src), "empty")); err != nil || !fi.IsDir() {
		t.Errorf("empty folder did not arrive: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "one.txt")); string(got) != "just one" {
		t.Errorf("one.txt: %q", got)
	}
}

func TestE2ETextToStdout(t *testing.T) {
	cmd := ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "121212", "--yes", "--dir", t.TempDir())
	recv := proc.Start(t, cmd, false)
	recv.Stderr.WaitFor(t, "listening on 127.0.0.1:", 20*time.Second)
	line := recv.Stderr.String()
	line = line[strings.Index(line, "listening on 127.0.0.1:")+len("listening on "):]
	addr := strings.Fields(line)[0]
	if _, stderr, code := sendRun(t, "--to", addr, "--code", "121212", "--quiet", "--text", "hello there"); code != 0 || stderr != "" {
		t.Fatalf("send --quiet: exit %d, stderr %q", code, stderr)
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Fatalf("receive exit %d; stderr:\n%s", c, recv.StderrText())
	}
	if got := recv.Stdout.String(); got != "hello there\n" {
		t.Errorf("receiver stdout %q, want the snippet alone", got)
	}
	checkStderr(t, recv.StderrText(), false)
}

func TestE2EWrongCode(t *testing.T) {
	_, addr := startReceiver(t, t.TempDir(), "111111", "--yes")
	_, stderr, code := sendRun(t, "--to", addr, "--code", "222222", "--quiet", writeTree(t))
	if code != exitWrong {
		t.Fatalf("wrong code: exit %d, want %d; stderr:\n%s", code, exitWrong, stderr)
	}
	if !strings.Contains(stderr, "wrong code") {
		t.Errorf("stderr does not say wrong code:\n%s", stderr)
	}
	checkStderr(t, stderr, true)
}

func TestE2EDeclineWithoutTerminal(t *testing.T) {
	// No --yes, no --json, stdin not a terminal (exec gives /dev/null).
	cmd := ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "333333", "--dir", t.TempDir())
	recv := proc.Start(t, cmd, false)
	recv.Stderr.WaitFor(t, "listening on 127.0.0.1:", 20*time.Second)
	s := recv.Stderr.String()
	addr := strings.Fields(s[strings.Index(s, "listening on ")+len("listening on "):])[0]
	_, stderr, code := sendRun(t, "--to", addr, "--code", "333333", writeTree(t))
	if code != exitDeclined {
		t.Fatalf("declined: sender exit %d, want %d; stderr:\n%s", code, exitDeclined, stderr)
	}
	if c := recv.Exit(20 * time.Second); c != exitDeclined {
		t.Errorf("receiver exit %d after declining, want %d", c, exitDeclined)
	}
	if !strings.Contains(recv.StderrText(), "ferry: hint: re-run with --yes") {
		t.Errorf("receiver did not say how to accept:\n%s", recv.StderrText())
	}
	checkStderr(t, recv.StderrText(), true)
	checkStderr(t, stderr, true)
}

func TestE2EInterruptWaitingReceiver(t *testing.T) {
	recv, _ := startReceiver(t, t.TempDir(), "444444", "--yes")
	recv.Signal(syscall.SIGTERM)
	for ev := range recv.Events {
		if ev["event"] == "error" && ev["kind"] != "cancelled" {
			t.Errorf("error event %v", ev)
		}
	}
	if c := recv.Exit(20 * time.Second); c != exitDeclined {
		t.Errorf("interrupted receiver exit %d, want %d; stderr:\n%s", c, exitDeclined, recv.StderrText())
	}
	if !strings.Contains(recv.StderrText(), "cancelled by the receiver (terminated)") {
		t.Errorf("stderr:\n%s", recv.StderrText())
	}
}

func TestE2EUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, stderr, code := sendRun(t, "--to", addr, "--code", "123456", "--quiet", writeTree(t))
	if code != exitFailure {
		t.Fatalf("unreachable: exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	if n := strings.Count(stderr, "\n"); n < 1 || n > 2 {
		t.Errorf("want one or two lines, got:\n%s", stderr)
	}
	checkStderr(t, stderr, true)
}

func TestE2EMissingPath(t *testing.T) {
	_, stderr, code := sendRun(t, "--to", "127.0.0.1:9", "--code", "123456", filepath.Join(t.TempDir(), "nope"))
	if code != exitUsage || !strings.Contains(stderr, "no such file or folder") {
		t.Fatalf("missing path: exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
	}
	checkStderr(t, stderr, true)
}

func TestE2EBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, stderr, code := proc.Run(t, ferryCmd(t, "receive", "--no-mdns", "--listen", l.Addr().String(), "--code", "123456", "--yes", "--dir", t.TempDir()))
	if code != exitFailure {
		t.Fatalf("busy port: exit %d, want %d; stderr:\n%s", code, exitFailure, stderr)
	}
	if !strings.Contains(stderr, "address already in use") || !strings.Contains(stderr, "ferry: hint: ") {
		t.Errorf("stderr:\n%s", stderr)
	}
	checkStderr(t, stderr, true)
}
