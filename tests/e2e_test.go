// Package tests holds Ferry's end-to-end tests: the real bin/ferry, built
// once per run by tests/proc, in two network namespaces joined by a veth pair that each
// test creates and removes (core/testkit/netns). Discovery is real mDNS on that
// veth; nothing leaves through the machine's own interfaces. The tests
// need root for the namespaces and skip with the reason elsewhere; CI
// runs them as root.
package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proc.RemoveBinary()
	os.Exit(code)
}

// tree makes a small folder tree with awkward names and returns its root.
func tree(t *testing.T) string {
	root := filepath.Join(t.TempDir(), "photos 2026")
	testkit.WriteTree(t, root, 0o640, map[string]string{
		"a.txt":                    "alpha\n",
		"empty":                    "",
		"sub dir/ünïcode – ok.txt": strings.Repeat("u", 70000),
		"sub dir/deep/er/x.bin":    strings.Repeat("\x00\x01", 300000),
		"empty dir/":               "",
	})
	return root
}

// sameTree fails unless dst holds exactly src's files, folders and bytes.
func sameTree(t *testing.T, src, dst string) {
	t.Helper()
	testkit.SameTree(t, src, dst, testkit.Compare{})
}

func TestDiscoverAndSendTree(t *testing.T) {
	pair := netns.NewPair(t)
	dest := t.TempDir()
	recv := proc.Start(t, pair.Command(pair.A, proc.Ferry(t), "receive", "--dir", dest, "--code", "246810",
		"--name", "alpha box", "--yes", "--json", "--iface", pair.VethA), true)
	ev := recv.Until("listening", 20*time.Second)
	if ev["code"] != "246810" {
		t.Fatalf("listening event: %v", ev)
	}

	// The other host sees it by mDNS.
	out, stderr, code := proc.Run(t, pair.Command(pair.B, proc.Ferry(t), "peers", "--timeout", "4s", "--iface", pair.VethB, "--json"))
	if code != 0 {
		t.Fatalf("peers exited %d: %s", code, stderr)
	}
	if !strings.Contains(out, "alpha box") || !strings.Contains(out, pair.AddrA.String()) {
		t.Fatalf("peers did not list the receiver with its address:\n%s\n%s", out, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("peers --json printed a non-JSON line: %q", line)
		}
	}

	src := tree(t)
	send := proc.Start(t, pair.Command(pair.B, proc.Ferry(t), "send", "--peer", "alpha box", "--code", "246810",
		"--iface", pair.VethB, "--json", src), true)
	if c := send.Exit(60 * time.Second); c != 0 {
		t.Fatalf("send exited %d; stderr:\n%s", c, send.Stderr)
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Fatalf("receive exited %d; stderr:\n%s", c, recv.Stderr)
	}
	sameTree(t, src, filepath.Join(dest, filepath.Base(src)))
}

func TestExitCodes(t *testing.T) {
	pair := netns.NewPair(t)
	addr := pair.AddrA.String()
	src := tree(t)

	t.Run("wrong code", func(t *testing.T) {
		dest := t.TempDir()
		recv := proc.Start(t, pair.Command(pair.A, proc.Ferry(t), "receive", "--dir", dest, "--code", "111111",
			"--yes", "--json", "--no-mdns", "--listen", addr+":7001"), true)
		recv.Until("listening", 20*time.Second)
		out, stderr, code := proc.Run(t, pair.Command(pair.B, proc.Ferry(t), "send", "--to", addr+":7001", "--code", "222222", "--json", src))
		runFailsAs(t, "the sender with a wrong code", out, code, stderr, "wrong_code")
		if !strings.Contains(strings.ToLower(stderr), "wrong code") {
			t.Errorf("stderr does not say wrong code:\n%s", stderr)
		}
		entries, _ := os.ReadDir(dest)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".ferry") {
				t.Errorf("wrong code created %s", e.Name())
			}
		}
	})

	t.Run("declined", func(t *testing.T) {
		// Without --yes and with no terminal on stdin, the receiver
		// declines and says how to accept.
		recv := proc.Start(t, pair.Command(pair.A, proc.Ferry(t), "receive", "--dir", t.TempDir(), "--code", "333333",
			"--json", "--no-mdns", "--listen", addr+":7002"), true)
		recv.Until("listening", 20*time.Second)
		out, stderr, code := proc.Run(t, pair.Command(pair.B, proc.Ferry(t), "send", "--to", addr+":7002", "--code", "333333", "--json", src))
		runFailsAs(t, "the declined sender", out, code, stderr, "declined")
		failsAs(t, recv, 20*time.Second, "the declining receiver", "declined")
		if !strings.Contains(recv.Stderr.String(), "--yes") {
			t.Errorf("receiver did not say how to accept:\n%s", recv.Stderr)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		out, stderr, code := proc.Run(t, pair.Command(pair.B, proc.Ferry(t), "send", "--to", addr+":1", "--code", "123456", "--json", src))
		runFailsAs(t, "the sender to a closed port", out, code, stderr, "unreachable")
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 1 || strings.Contains(stderr, "goroutine") {
			t.Errorf("want one or two clear lines, got:\n%s", stderr)
		}
	})

	for _, who := range []string{"sender", "receiver"} {
		t.Run("cancel by "+who, func(t *testing.T) {
			// A slow link keeps the transfer going long enough to
			// interrupt it mid-stream.
			if err := pair.Limit("40mbit"); err != nil {
				t.Fatal(err)
			}
			defer pair.Limit("10gbit")
			big := testkit.SparseFile(t, filepath.Join(t.TempDir(), "big.bin"), 400<<20)
			port := map[string]string{"sender": "7003", "receiver": "7004"}[who]
			recv := proc.Start(t, pair.Command(pair.A, proc.Ferry(t), "receive", "--dir", t.TempDir(), "--code", "444444",
				"--yes", "--json", "--no-mdns", "--listen", addr+":"+port), true)
			recv.Until("listening", 20*time.Second)
			send := proc.Start(t, pair.Command(pair.B, proc.Ferry(t), "send", "--to", addr+":"+port, "--code", "444444", "--json", big), true)
			send.Until("progress", 30*time.Second)
			victim, other := send, recv
			if who == "receiver" {
				victim, other = recv, send
			}
			victim.Signal(syscall.SIGINT)
			failsAs(t, victim, 20*time.Second, "the interrupted "+who, "cancelled")
			failsAs(t, other, 20*time.Second, "the other end after the "+who+" cancelled", "cancelled")
			if !strings.Contains(strings.ToLower(other.Stderr.String()), "cancel") {
				t.Errorf("other end did not report the cancel:\n%s", other.Stderr)
			}
		})
	}
}

// sendOverLimitedLink sends a sparse file of mib MiB across the pair's
// link shaped to rate, with --diag on both ends, and returns the sender's
// stderr and how long the send took.
func sendOverLimitedLink(t *testing.T, rate string, mib int64, port string) (string, time.Duration) {
	t.Helper()
	pair := netns.NewPair(t)
	if err := pair.Limit(rate); err != nil {
		t.Fatal(err)
	}
	addr := pair.AddrA.String()
	big := testkit.SparseFile(t, filepath.Join(t.TempDir(), "big.bin"), mib<<20)
	recv := proc.Start(t, pair.Command(pair.A, proc.Ferry(t), "receive", "--dir", t.TempDir(), "--code", "555555",
		"--yes", "--json", "--no-mdns", "--diag", "--listen", addr+":"+port), true)
	recv.Until("listening", 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	_, stderr, code := proc.Run(t, pair.CommandContext(ctx, pair.B, proc.Ferry(t), "send", "--to", addr+":"+port, "--code", "555555", "--diag", big))
	took := time.Since(began)
	if code != 0 {
		t.Fatalf("send over the %s link: exit %d\n%s", rate, code, stderr)
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Errorf("receiver exit %d", c)
	}
	if !strings.Contains(stderr, "slowest stage") {
		t.Errorf("--diag printed no verdict:\n%s", stderr)
	}
	// A figure for the notes, not an assertion: speed is measured in
	// benches/, never asserted in tests.
	t.Logf("%d MiB across a tbf %s veth in %v (%.0f Mbit/s); sender said:\n%s",
		mib, rate, took.Round(time.Millisecond), float64(mib)*8*1.048576/took.Seconds(), lastLines(stderr, 4))
	return stderr, took
}

func TestOneGigabitLink(t *testing.T) {
	sendOverLimitedLink(t, "1gbit", 256, "7005")
}

// On a link far slower than either end's work, even on a loaded machine,
// the verdict must blame the network rather than a stage of ours. (At
// 1 Gbit/s a busy 2-core machine can itself be the limit, so the check is
// made at 100 Mbit/s.)
func TestVerdictNamesSlowLink(t *testing.T) {
	stderr, _ := sendOverLimitedLink(t, "100mbit", 40, "7006")
	if !strings.Contains(stderr, "slowest stage: the network") {
		t.Errorf("verdict does not name the network on a 100 Mbit/s link:\n%s", lastLines(stderr, 3))
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
