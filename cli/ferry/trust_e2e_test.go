//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/tests/proc"
)

// asHome runs the built ferry as the device whose home is home: proc
// gives every process a fresh home, and a trusted device must keep its
// key and trust file from one run to the next.
func asHome(t *testing.T, home string, args ...string) *exec.Cmd {
	pre := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), proc.Ferry(t)}
	return exec.Command("env", append(pre, args...)...)
}

// homeKey is the key of the device whose home is home, made the first
// time as ferry makes it.
func homeKey(t *testing.T, home string) []byte {
	t.Helper()
	n, err := app.New(app.Config{ConfigDir: filepath.Join(home, ".config", "ferry"), NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	return n.PublicKey()
}

func homeStore(home string) *stores.Trust {
	s, err := stores.OpenTrust(filepath.Join(home, ".config", "ferry"))
	if err != nil {
		panic(err) // only the default folder can fail to be found
	}
	return s
}

// listenAt starts a loopback receiver as home and returns it, its
// address and its listening event.
func listenAt(t *testing.T, home string, extra ...string) (*proc.Proc, string, map[string]any) {
	t.Helper()
	args := append([]string{"receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json", "--name", "desk", "--dir", t.TempDir()}, extra...)
	r := proc.Start(t, asHome(t, home, args...), true)
	ev := r.Until("listening", 20*time.Second)
	return r, "127.0.0.1:" + strconv.Itoa(int(ev["port"].(float64))), ev
}

// TestE2ETrustOnLoopback pairs two devices with a code (the sender on a
// terminal, asked for the code and then whether to trust; the receiver
// with --trust), sends again without a code, then revokes on the
// receiver and regenerates the receiver's key: each code-less attempt
// after that is refused with its own kind and exit code 3.
func TestE2ETrustOnLoopback(t *testing.T) {
	deskHome, laptopHome := t.TempDir(), t.TempDir()
	file := filepath.Join(t.TempDir(), "note.txt")
	os.WriteFile(file, []byte("paired hello\n"), 0o644)

	// 1. Pair: a transfer with the code, both ends on a terminal, each
	// asked whether to trust the other after the transfer.
	rm, rout, recv, addr := ptyReceiver(t, asHome(t, deskHome, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--name", "desk", "--code", "314159", "--dir", t.TempDir()), true, 0)
	text := rout.String()
	deskFP := strings.Fields(text[strings.Index(text, "this device: desk (")+len("this device: desk ("):])[0]
	deskFP = strings.TrimSuffix(deskFP, ")")

	m, s := openPTY(t)
	cmd := asHome(t, laptopHome, "send", "--to", addr, "--name", "laptop", file)
	cmd.Stdin, cmd.Stderr = s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out := ptyOutput(m)
	send := proc.Start(t, cmd, false)
	s.Close()
	out.WaitFor(t, "code shown on "+addr+": ", 20*time.Second)
	m.Write([]byte("314159\n"))
	rout.WaitFor(t, "? [y/N] ", 20*time.Second) // accept?
	rm.Write([]byte("y\n"))
	out.WaitFor(t, "trust desk ("+deskFP+") so later transfers need no code? [y/N] ", 20*time.Second)
	m.Write([]byte("y\n"))
	if c := send.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("pairing send: exit %d; terminal:\n%s", c, out)
	}
	out.WaitFor(t, "trusted desk ("+deskFP+"): transfers need no code once desk trusts this device too", 5*time.Second)
	rout.WaitFor(t, "trust laptop (", 20*time.Second)
	rout.WaitFor(t, ") so later transfers need no code? [y/N] ", 5*time.Second)
	rm.Write([]byte("y\n"))
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("pairing receive: exit %d; terminal:\n%s", c, rout)
	}
	rout.WaitFor(t, "trusted laptop (", 5*time.Second)
	text = rout.String()
	laptopFP := strings.TrimSuffix(strings.Fields(text[strings.Index(text, "trusted laptop (")+len("trusted laptop ("):])[0], "):")
	if st, d, err := homeStore(laptopHome).Classify("desk", deskFP); err != nil || d.Name != "desk" || st != stores.TrustTrusted {
		t.Fatalf("laptop's pin for desk: %v %v %v", st, d, err)
	}
	if st, _, _ := homeStore(deskHome).Classify("laptop", laptopFP); st != stores.TrustTrusted {
		t.Fatal("desk does not trust laptop")
	}

	// 2. No code: the receiver shows a random one, accepts trusted
	// senders without asking, and has no terminal.
	recv, addr, _ = listenAt(t, deskHome, "--accept-trusted")
	send = proc.Start(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--name", "laptop", "--json", file), true)
	if ev := send.Until("connected", 20*time.Second); ev["paired"] != true {
		t.Errorf("sender connected event: %v", ev)
	}
	if c := send.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("code-less send: exit %d\n%s", c, send.StderrText())
	}
	if ev := recv.Until("connected", 5*time.Second); ev["paired"] != true || ev["peer_name"] != "laptop" {
		t.Errorf("receiver connected event: %v", ev)
	}
	if ev := recv.Until("accepted", 5*time.Second); ev["by"] != "trusted" {
		t.Errorf("receiver accepted event: %v", ev)
	}
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("code-less receive: exit %d\n%s", c, recv.StderrText())
	}

	// 3. Revoked on the receiver: refused on both ends, the receiver goes
	// on waiting (for a sender with the code).
	if _, stderr, c := proc.Run(t, asHome(t, deskHome, "trust", "remove", "laptop")); c != exitOK {
		t.Fatalf("trust remove: exit %d\n%s", c, stderr)
	}
	recv, addr, _ = listenAt(t, deskHome, "--yes")
	_, stderr, c := proc.Run(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", file))
	if c != exitWrong || !strings.Contains(stderr, "not paired: the other device does not trust this one") ||
		!strings.Contains(stderr, "ferry: hint: pair again: send once with the code, then answer yes to trust") {
		t.Errorf("send after revoke: exit %d\n%s", c, stderr)
	}
	checkStderr(t, stderr, true)
	if ev := recv.Until("refused", 20*time.Second); ev["kind"] != "not_paired" || ev["reason"] != "not_trusted" || ev["peer_fingerprint"] != laptopFP ||
		!strings.Contains(ev["message"].(string), "refused laptop ("+laptopFP+"): it sent without a code, and this device does not trust it") {
		t.Errorf("receiver refused event: %v", ev)
	}
	recv.Signal(os.Interrupt)
	if c := recv.Exit(20 * time.Second); c != exitDeclined {
		t.Errorf("receiver interrupted while waiting: exit %d", c)
	}

	// 4. The receiver made a new key: the laptop's pin is stale. The
	// receiver, which never learns who it was, says so too.
	os.Remove(filepath.Join(deskHome, ".config", "ferry", "static.key"))
	recv, addr, _ = listenAt(t, deskHome, "--yes")
	stdout, stderr, c := proc.Run(t, asHome(t, laptopHome, "send", "--to", addr, "--paired", "desk", "--json", file))
	if c != exitWrong || !strings.Contains(stdout, `"kind":"key_changed"`) || !strings.Contains(stdout, "ferry trust remove "+deskFP) {
		t.Errorf("send to a new key: exit %d\n%s\n%s", c, stdout, stderr)
	}
	stale := "refused a sender at 127.0.0.1: it sent without a code, expecting another key for this device"
	if ev := recv.Until("refused", 20*time.Second); ev["kind"] != "not_paired" || ev["reason"] != "pin_mismatch" ||
		ev["peer_fingerprint"] != "" || !strings.Contains(ev["message"].(string), stale) {
		t.Errorf("receiver refused event for a stale pin: %v", ev)
	}
	recv.Signal(os.Interrupt)
	if c := recv.Exit(20 * time.Second); c != exitDeclined {
		t.Errorf("receiver interrupted while waiting: exit %d", c)
	}
	if s := recv.StderrText(); !strings.Contains(s, "ferry: warning: "+stale) || !strings.Contains(s, "ferry: hint: pair again") {
		t.Errorf("receiver's stderr after a stale pin:\n%s", s)
	}
}
