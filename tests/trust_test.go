//go:build linux

package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/netns"
	"github.com/ferry-project/ferry/tests/proc"
)

// trustRig is two hosts of a netns pair and the devices on them, each a
// home (key and trust file) that lasts across processes: desk receives on
// A, laptop sends from B, and an impostor on A advertises desk's name
// with a key of its own.
type trustRig struct {
	t                      *testing.T
	pair                   *netns.Pair
	desk, laptop, impostor string // homes
	deskDest               string // where desk saves
	file                   string // what laptop sends
	deskFP, laptopFP       string
}

// cmd returns a command for ferry as the device with home, in namespace ns.
func (r *trustRig) cmd(ns, home string, args ...string) *exec.Cmd {
	pre := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), proc.Ferry(r.t)}
	return r.pair.Command(ns, "env", append(pre, args...)...)
}

// receive starts home as a receiver named name on A, with mDNS on the
// veth, and returns it and its listening event.
func (r *trustRig) receive(home, name string, extra ...string) (*proc.Proc, map[string]any) {
	r.t.Helper()
	args := append([]string{"receive", "--name", name, "--dir", r.deskDest, "--json", "--iface", r.pair.VethA}, extra...)
	p := proc.Start(r.t, r.cmd(r.pair.A, home, args...), true)
	return p, p.Until("listening", 20*time.Second)
}

// send runs laptop's send on B to its end.
func (r *trustRig) send(args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	args = append(append([]string{"send", "--name", "laptop", "--iface", r.pair.VethB}, args...), r.file)
	return proc.Run(r.t, r.cmd(r.pair.B, r.laptop, args...))
}

// stop interrupts a receiver that is still waiting and checks that it
// ends as cancelled.
func (r *trustRig) stop(p *proc.Proc) {
	r.t.Helper()
	p.Signal(os.Interrupt)
	failsAs(r.t, p, 20*time.Second, "the receiver interrupted while waiting", "cancelled")
}

// peers runs ferry peers on B as laptop and returns the trust field of
// each peer by fingerprint.
func (r *trustRig) peers() map[string]string {
	r.t.Helper()
	out, stderr, code := proc.Run(r.t, r.cmd(r.pair.B, r.laptop, "peers", "--timeout", "3s", "--iface", r.pair.VethB, "--json"))
	if code != 0 {
		r.t.Fatalf("peers: exit %d\n%s", code, stderr)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		ev := jsonLine(r.t, line)
		m[ev["fingerprint"].(string)] = ev["trust"].(string)
	}
	return m
}

func jsonLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("not a JSON line: %q", line)
	}
	return ev
}

// TestTrustedDevices: two devices pair with a code, send again without
// one over mDNS, and every way that trust can be lost is refused with its
// own message: trust removed on the receiver (both ends fail, not
// paired), removed on the sender (a code is needed again), an impostor
// with desk's name (key changed, never connected to), and desk with a new
// key (key changed, in discovery and in the handshake; desk says it
// refused a stale pin).
func TestTrustedDevices(t *testing.T) {
	r := &trustRig{t: t, pair: netns.NewPair(t), desk: t.TempDir(), laptop: t.TempDir(), impostor: t.TempDir(),
		deskDest: t.TempDir()}
	r.file = filepath.Join(t.TempDir(), "note.txt")
	os.WriteFile(r.file, []byte("sent without a code\n"), 0o644)
	deskAddr := r.pair.AddrA.String()

	// 1. Pair: a transfer with the code, --trust on both ends.
	recv, ev := r.receive(r.desk, "desk", "--code", "424242", "--yes", "--trust", "--listen", deskAddr+":7401")
	r.deskFP = ev["fingerprint"].(string)
	stdout, stderr, code := r.send("--to", deskAddr+":7401", "--code", "424242", "--trust", "--json")
	if code != 0 || !strings.Contains(stdout, `"event":"trusted","name":"desk","fingerprint":"`+r.deskFP+`"`) {
		t.Fatalf("pairing send: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for ev := range recv.Events {
		switch ev["event"] {
		case "connected":
			r.laptopFP = ev["peer_fingerprint"].(string)
		case "trusted":
			if ev["name"] != "laptop" || ev["fingerprint"] != r.laptopFP {
				t.Errorf("desk trusted %v", ev)
			}
		}
	}
	if c := recv.Exit(20 * time.Second); c != 0 || r.laptopFP == "" {
		t.Fatalf("pairing receive: exit %d\n%s", c, recv.StderrText())
	}

	// 2. Again, without a code, found over mDNS; peers marks it trusted.
	recv, _ = r.receive(r.desk, "desk", "--accept-trusted")
	if got := r.peers(); got[r.deskFP] != "trusted" {
		t.Errorf("peers: %v, want desk %s trusted", got, r.deskFP)
	}
	stdout, stderr, code = r.send("--peer", "desk", "--json")
	if code != 0 || !strings.Contains(stdout, `"event":"connected","peer_name":"desk"`) || !strings.Contains(stdout, `"paired":true`) {
		t.Fatalf("code-less send: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Fatalf("code-less receive: exit %d\n%s", c, recv.StderrText())
	}
	if b, err := os.ReadFile(filepath.Join(r.deskDest, "note.txt")); err != nil || string(b) != "sent without a code\n" {
		t.Fatalf("note.txt did not land: %q %v", b, err)
	}

	// 3. Trust removed on the receiver: the next code-less attempt fails
	// on both ends, saying to pair again; the receiver goes on waiting.
	if _, stderr, c := proc.Run(t, r.cmd(r.pair.A, r.desk, "trust", "remove", "laptop")); c != 0 {
		t.Fatalf("trust remove on desk: exit %d\n%s", c, stderr)
	}
	recv, _ = r.receive(r.desk, "desk", "--yes")
	stdout, stderr, code = r.send("--peer", "desk", "--json")
	runFailsAs(t, "the send after desk removed laptop", stdout, code, stderr, "not_paired")
	if !strings.Contains(stderr, "ferry: error: sending to desk ("+r.deskFP+") without a code") ||
		!strings.Contains(stderr, "not paired: the other device does not trust this one") ||
		!strings.Contains(stderr, "ferry: hint: pair again: send once with the code, then answer yes to trust") {
		t.Errorf("send after desk removed laptop: exit %d\n%s", code, stderr)
	}
	if ev := recv.Until("refused", 20*time.Second); ev["kind"] != "not_paired" || ev["reason"] != "not_trusted" || ev["peer_fingerprint"] != r.laptopFP {
		t.Errorf("desk's refused event: %v", ev)
	}
	r.stop(recv)
	if s := recv.StderrText(); !strings.Contains(s, "ferry: warning: refused laptop ("+r.laptopFP+"): it sent without a code, and this device does not trust it") ||
		!strings.Contains(s, "ferry: hint: pair again") {
		t.Errorf("desk's stderr:\n%s", s)
	}

	// 4. Trust removed on the sender: without a terminal it stops before
	// the network, saying desk is not trusted; on a terminal it asks for
	// the code, and answering yes afterwards pairs the two again.
	if _, stderr, c := proc.Run(t, r.cmd(r.pair.B, r.laptop, "trust", "remove", r.deskFP[:9])); c != 0 {
		t.Fatalf("trust remove on laptop: exit %d\n%s", c, stderr)
	}
	// Without --json (which asks nothing, and says so instead): the exit
	// code is the one the README gives a usage error.
	_, stderr, code = r.send("--peer", "desk")
	if code != 2 || !strings.Contains(stderr, "no code given and standard input is not a terminal, and desk is not a trusted device") {
		t.Errorf("send after laptop removed desk: exit %d\n%s", code, stderr)
	}
	recv, _ = r.receive(r.desk, "desk", "--code", "535353", "--yes", "--trust")
	m, s := proc.OpenPTY(t)
	cmd := r.cmd(r.pair.B, r.laptop, "send", "--name", "laptop", "--iface", r.pair.VethB, "--peer", "desk", r.file)
	cmd.Stdin, cmd.Stderr = s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	term := proc.TerminalOutput(m)
	send := proc.Start(t, cmd, false)
	s.Close()
	term.WaitFor(t, "code shown on desk ("+r.deskFP+"): ", 20*time.Second)
	m.Write([]byte("535353\n"))
	term.WaitFor(t, "trust desk ("+r.deskFP+") so later transfers need no code? [y/N] ", 20*time.Second)
	m.Write([]byte("y\n"))
	if c := send.Exit(20 * time.Second); c != 0 {
		t.Fatalf("send on a terminal: exit %d\n%s", c, term)
	}
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Fatalf("re-pairing receive: exit %d\n%s", c, recv.StderrText())
	}

	// 5. An impostor: another key with desk's name. peers tells the two
	// apart; with only the impostor left, a code-less send refuses it
	// before connecting.
	recv, _ = r.receive(r.desk, "desk", "--yes")
	fake, ev := r.receive(r.impostor, "desk", "--yes")
	fakeFP := ev["fingerprint"].(string)
	if got := r.peers(); got[r.deskFP] != "trusted" || got[fakeFP] != "key_changed" {
		t.Errorf("peers with the impostor: %v, want %s trusted and %s key_changed", got, r.deskFP, fakeFP)
	}
	r.stop(recv)
	stdout, stderr, code = r.send("--peer", "desk", "--json")
	runFailsAs(t, "the send to the impostor", stdout, code, stderr, "key_changed")
	if !strings.Contains(stdout, "desk advertises key "+fakeFP+", not the pinned "+r.deskFP) {
		t.Errorf("send to the impostor: exit %d\n%s\n%s", code, stdout, stderr)
	}
	fake.Signal(os.Interrupt)
	for ev := range fake.Events {
		if ev["event"] == "connected" || ev["event"] == "offer" {
			t.Errorf("the impostor was connected to: %v", ev)
		}
	}
	fake.Exit(20 * time.Second)

	// 6. desk made a new key: the pin is stale, in discovery (--peer) and
	// in the handshake (--to with --paired), where desk refuses too,
	// saying so (it never learns the sender's key: laptop stops first).
	os.Remove(filepath.Join(r.desk, ".config", "ferry", "static.key"))
	recv, ev = r.receive(r.desk, "desk", "--yes", "--listen", deskAddr+":7402")
	newFP := ev["fingerprint"].(string)
	stdout, stderr, code = r.send("--peer", "desk", "--json")
	runFailsAs(t, "--peer to desk's new key", stdout, code, stderr, "key_changed")
	if !strings.Contains(stdout, newFP) {
		t.Errorf("--peer to desk's new key: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = r.send("--to", deskAddr+":7402", "--paired", "desk", "--json")
	runFailsAs(t, "--paired to desk's new key", stdout, code, stderr, "key_changed")
	if !strings.Contains(stdout, "expected "+r.deskFP+", got "+newFP) ||
		!strings.Contains(stdout, "ferry trust remove "+r.deskFP) {
		t.Errorf("--paired to desk's new key: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stale := "refused a sender at " + r.pair.AddrB.String() + ": it sent without a code, expecting another key for this device"
	if ev := recv.Until("refused", 20*time.Second); ev["kind"] != "not_paired" || ev["reason"] != "pin_mismatch" ||
		ev["peer_fingerprint"] != "" || !strings.Contains(ev["message"].(string), stale) {
		t.Errorf("desk's refused event for the stale pin: %v", ev)
	}
	r.stop(recv)
	if s := recv.StderrText(); !strings.Contains(s, "ferry: warning: "+stale) || !strings.Contains(s, "ferry: hint: pair again") {
		t.Errorf("desk's stderr after the stale pin:\n%s", s)
	}
}
