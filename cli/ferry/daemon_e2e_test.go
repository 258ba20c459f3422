//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// pairHomes makes the devices whose homes are a and b trust each other,
// as a transfer with a code and two yeses would: each key is created
// where ferry keeps it, and each store pins the other's key.
func pairHomes(t *testing.T, a, aName, b, bName string) {
	t.Helper()
	ida := homeKey(t, a)
	idb := homeKey(t, b)
	if err := homeStore(a).Add(stores.Device{Name: bName, Key: idb}); err != nil {
		t.Fatal(err)
	}
	if err := homeStore(b).Add(stores.Device{Name: aName, Key: ida}); err != nil {
		t.Fatal(err)
	}
}

var listeningRE = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// TestE2EDaemon runs `ferry receive --daemon` as a service manager would
// (no terminal) and sends to it: a trusted device's file arrives without
// a question; a stranger with a code (even the one the daemon picked,
// which it never shows) is refused in the handshake before any guess is
// checked, and a stranger without one refused; a trusted sender killed
// halfway is a warning; the daemon serves the next sender after each,
// logs plain lines without a code, never writes the guess budget's file,
// and SIGTERM ends it with exit 0, cancelling the transfer in flight.
func TestE2EDaemon(t *testing.T) {
	deskHome, laptopHome, strangerHome := t.TempDir(), t.TempDir(), t.TempDir()
	pairHomes(t, deskHome, "desk", laptopHome, "laptop")
	// The stranger pinned desk's key (it saw it once), but desk never
	// trusted the stranger.
	homeKey(t, strangerHome)
	deskID := homeKey(t, deskHome)
	if err := homeStore(strangerHome).Add(stores.Device{Name: "desk", Key: deskID}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	d := proc.Start(t, asHome(t, deskHome, "receive", "--daemon", "--no-mdns", "--listen", "127.0.0.1:0",
		"--name", "desk", "--dir", dir), false)
	d.Stderr.WaitFor(t, "accepting trusted devices only, until stopped", 20*time.Second)
	m := listeningRE.FindStringSubmatch(d.Stderr.String())
	if m == nil {
		t.Fatalf("no address in the daemon's log:\n%s", d.Stderr)
	}
	addr := m[1]
	src := t.TempDir()
	note := filepath.Join(src, "note.txt")
	os.WriteFile(note, []byte("to the daemon\n"), 0o644)

	// 1. A trusted device: accepted without asking.
	if _, stderr, c := proc.Run(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--name", "laptop", note)); c != exitOK {
		t.Fatalf("trusted send: exit %d\n%s", c, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(b) != "to the daemon\n" {
		t.Fatalf("note.txt at the daemon: %q, %v", b, err)
	}
	d.Stderr.WaitFor(t, "accepted: laptop (", 10*time.Second)

	// 2. A stranger with a code, twice: refused before any guess, nothing
	// saved, and no wrong code counted anywhere.
	other := filepath.Join(src, "other.txt")
	os.WriteFile(other, []byte("from a stranger\n"), 0o644)
	for _, code := range []string{"271828", "314159"} {
		_, stderr, c := proc.Run(t, asHome(t, strangerHome, "send", "--to", addr, "--code", code, "--name", "stranger", other))
		if c != exitWrong || !strings.Contains(stderr, "codes off: paired devices only: the other device takes trusted devices only and checks no code (none was tried)") {
			t.Errorf("stranger with a code: exit %d, want %d (not paired, codes off)\n%s", c, exitWrong, stderr)
		}
	}
	d.Stderr.WaitFor(t, "it sent with a code, and this receiver takes trusted devices only (no code was checked)", 10*time.Second)
	d.Stderr.WaitFor(t, "ferry: hint: to take files from that device, pair it once: receive from it with a code, then answer yes to trust; --trust answers yes for you", 10*time.Second)
	if strings.Contains(d.Stderr.String(), "wrong code") {
		t.Errorf("the daemon counted a wrong code:\n%s", d.Stderr)
	}
	if _, err := os.Stat(filepath.Join(deskHome, ".config", "ferry", "guesses.json")); !os.IsNotExist(err) {
		t.Errorf("the daemon touched the guess budget's file: %v", err)
	}

	// 3. A stranger without a code: refused by the handshake.
	_, stderr, c := proc.Run(t, asHome(t, strangerHome, "send", "--to", addr, "--paired", "desk", "--name", "stranger", other))
	if c != exitWrong {
		t.Errorf("stranger without a code: exit %d, want %d (not paired)\n%s", c, exitWrong, stderr)
	}
	d.Stderr.WaitFor(t, "it sent without a code, and this device does not trust it", 10*time.Second)
	if _, err := os.Stat(filepath.Join(dir, "other.txt")); !os.IsNotExist(err) {
		t.Errorf("a stranger's file was saved: %v", err)
	}

	// 4. A trusted sender killed in the middle of a large file.
	big := testkit.SparseFile(t, filepath.Join(src, "big.bin"), 1<<30)
	s := proc.Start(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--name", "laptop", "--json", big), true)
	s.Until("progress", 30*time.Second)
	s.Cmd.Process.Signal(syscall.SIGKILL)
	s.Exit(10 * time.Second)
	d.Stderr.WaitFor(t, "ferry: warning: transfer failed: ", 20*time.Second)

	// 5. And it still serves: the next trusted transfer arrives.
	again := filepath.Join(src, "again.txt")
	os.WriteFile(again, []byte("still there\n"), 0o644)
	if _, stderr, c := proc.Run(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--name", "laptop", again)); c != exitOK {
		t.Fatalf("trusted send after a failure: exit %d\n%s", c, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "again.txt")); err != nil || string(b) != "still there\n" {
		t.Fatalf("again.txt at the daemon: %q, %v", b, err)
	}

	// 6. SIGTERM in the middle of a transfer: the sender is told it was
	// cancelled, and the daemon exits 0.
	s = proc.Start(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--name", "laptop", "--json", big), true)
	s.Until("progress", 30*time.Second)
	d.Signal(syscall.SIGTERM)
	if c := d.Exit(20 * time.Second); c != exitOK {
		t.Errorf("daemon after SIGTERM: exit %d\n%s", c, d.Stderr)
	}
	if c := s.Exit(20 * time.Second); c != exitDeclined || !strings.Contains(s.StderrText(), "cancelled") {
		t.Errorf("sender when the daemon stopped: exit %d, want %d (cancelled)\n%s", c, exitDeclined, s.StderrText())
	}
	d.Stderr.WaitFor(t, "ferry: stopped: cancelled by the receiver (terminated)", 5*time.Second)
	log := d.Stderr.String()
	t.Logf("the daemon's log:\n%s", log)
	if regexp.MustCompile(`code \d{6}`).MatchString(log) || strings.Contains(log, "\r") || strings.Contains(log, "\x1b") {
		t.Error("the daemon's log shows the code or terminal control characters")
	}
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if !strings.HasPrefix(line, "ferry: ") && !strings.HasPrefix(line, "  ") {
			t.Errorf("log line without the ferry: prefix: %q", line)
		}
	}
	if bytes.Contains([]byte(log), []byte("panic")) {
		t.Error("panic in the daemon's log")
	}
}

func TestDaemonFlags(t *testing.T) {
	o, err := parseReceive([]string{"--daemon"})
	if err != nil || !o.keep || !o.acceptTrusted {
		t.Errorf("--daemon: keep=%v accept-trusted=%v err=%v; want both set", o.keep, o.acceptTrusted, err)
	}
	for _, bad := range [][]string{{"--daemon", "--yes"}, {"--daemon", "--json"}, {"--daemon", "--code", "271828"}} {
		if _, err := parseReceive(bad); err == nil {
			t.Errorf("%v: no usage error", bad)
		}
	}
}

// TestE2EDaemonSeveral runs the daemon with --max-transfers 2: a second
// trusted device's file arrives while the first device's transfer is
// still in flight (frozen with SIGSTOP, so the two overlap however fast
// the machine), then the first completes, each logged with its sender.
func TestE2EDaemonSeveral(t *testing.T) {
	deskHome, laptopHome, phoneHome := t.TempDir(), t.TempDir(), t.TempDir()
	pairHomes(t, deskHome, "desk", laptopHome, "laptop")
	pairHomes(t, deskHome, "desk", phoneHome, "phone")
	dir := t.TempDir()
	d := proc.Start(t, asHome(t, deskHome, "receive", "--daemon", "--max-transfers", "2", "--no-mdns",
		"--listen", "127.0.0.1:0", "--name", "desk", "--dir", dir), false)
	d.Stderr.WaitFor(t, "waiting for trusted devices, up to 2 at once", 20*time.Second)
	m := listeningRE.FindStringSubmatch(d.Stderr.String())
	if m == nil {
		t.Fatalf("no address in the daemon's log:\n%s", d.Stderr)
	}
	addr, src := m[1], t.TempDir()
	big := testkit.SparseFile(t, filepath.Join(src, "big.bin"), 256<<20)
	note := filepath.Join(src, "note.txt")
	os.WriteFile(note, []byte("while the laptop sends\n"), 0o644)

	laptop := proc.Start(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--name", "laptop", "--json", big), true)
	laptop.Until("progress", 30*time.Second)
	laptop.Signal(syscall.SIGSTOP)
	if _, stderr, c := proc.Run(t, asHome(t, phoneHome, "send", "--to", addr, "--paired", "desk", "--name", "phone", note)); c != exitOK {
		laptop.Signal(syscall.SIGCONT)
		t.Fatalf("the phone's send beside the laptop's: exit %d\n%s", c, stderr)
	}
	laptop.Signal(syscall.SIGCONT)
	if c := laptop.Exit(60 * time.Second); c != exitOK {
		t.Fatalf("the laptop's send: exit %d\n%s", c, laptop.StderrText())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(b) != "while the laptop sends\n" {
		t.Errorf("note.txt at the daemon: %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "big.bin")); err != nil || fi.Size() != 256<<20 {
		t.Errorf("big.bin at the daemon: %v, %v", fi, err)
	}
	d.Stderr.WaitFor(t, "accepted: phone (", 10*time.Second)
	d.Stderr.WaitFor(t, "accepted: laptop (", 10*time.Second)
	d.Signal(syscall.SIGTERM)
	if c := d.Exit(20 * time.Second); c != exitOK {
		t.Errorf("daemon after SIGTERM: exit %d\n%s", c, d.Stderr)
	}
	if log := d.Stderr.String(); strings.Contains(log, "\x1b") || regexp.MustCompile(`code \d{6}`).MatchString(log) {
		t.Errorf("the daemon's log shows the code or terminal control characters:\n%s", log)
	}
}
