//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
	"golang.org/x/sys/unix"
)

// openPTY and ptyOutput are tests/proc's, under the names these tests
// have always used.
func openPTY(t *testing.T) (master, slave *os.File) { return proc.OpenPTY(t) }

func ptyOutput(m *os.File) *proc.Output { return proc.TerminalOutput(m) }

// ptyReceiver starts cmd, a "ferry receive" listening on 127.0.0.1, as
// a person's terminal would run it: its stderr, and with stdin its stdin
// too, on a new terminal (cols wide, or the default for 0). It returns
// the terminal's master end, what the terminal shows, the process, and
// the address it listens on.
func ptyReceiver(t *testing.T, cmd *exec.Cmd, stdin bool, cols uint16) (*os.File, *proc.Output, *proc.Proc, string) {
	t.Helper()
	m, s := openPTY(t)
	if cols != 0 {
		if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Stderr = s
	ctty := 2
	if stdin {
		cmd.Stdin, ctty = s, 0
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: ctty}
	out := ptyOutput(m)
	recv := proc.Start(t, cmd, false)
	s.Close()
	out.WaitFor(t, "listening on 127.0.0.1:", 20*time.Second)
	text := out.String()
	addr := strings.Fields(text[strings.Index(text, "listening on ")+len("listening on "):])[0]
	return m, out, recv, addr
}

func bigFile(t *testing.T, size int64) string {
	t.Helper()
	return testkit.SparseFile(t, filepath.Join(t.TempDir(), "big.bin"), size)
}

// TestPTYProgressBar: with stderr on a terminal, the sender draws the bar
// (carriage returns, a filled bar, 100%); with stderr on a pipe, the same
// transfer prints plain lines and never a carriage return.
func TestPTYProgressBar(t *testing.T) {
	big := bigFile(t, 48<<20)

	t.Run("terminal", func(t *testing.T) {
		recv, addr := startReceiver(t, t.TempDir(), "565656", "--yes")
		m, s := openPTY(t)
		cmd := ferryCmd(t, "send", "--to", addr, "--code", "565656", big)
		cmd.Stderr = s
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
		out := ptyOutput(m)
		send := proc.Start(t, cmd, false)
		s.Close() // ferry holds its own copy; EIO on the master then means it exited
		if c := send.Exit(60 * time.Second); c != 0 {
			t.Fatalf("send exit %d; terminal:\n%q", c, out)
		}
		<-out.Closed
		got := out.String()
		for _, want := range []string{"\r", "█", "100%", "big.bin", "MiB", "every file confirmed"} {
			if !strings.Contains(got, want) {
				t.Errorf("terminal output lacks %q:\n%q", want, got)
			}
		}
		if c := recv.Exit(20 * time.Second); c != 0 {
			t.Errorf("receive exit %d", c)
		}
	})

	t.Run("pipe", func(t *testing.T) {
		recv, addr := startReceiver(t, t.TempDir(), "575757", "--yes")
		_, stderr, code := sendRun(t, "--to", addr, "--code", "575757", big)
		if code != 0 {
			t.Fatalf("send exit %d; stderr:\n%s", code, stderr)
		}
		if strings.ContainsRune(stderr, '\r') || strings.Contains(stderr, "█") {
			t.Errorf("plain mode drew a bar:\n%q", stderr)
		}
		if !strings.Contains(stderr, " / 48 MiB (") {
			t.Errorf("no plain progress line:\n%s", stderr)
		}
		checkStderr(t, stderr, false)
		if c := recv.Exit(20 * time.Second); c != 0 {
			t.Errorf("receive exit %d", c)
		}
	})
}

// TestPTYAcceptAndCancel drives the receiver's question on a terminal:
// answering y accepts; an interrupt on either end while the question is
// pending cancels both ends with exit code 4.
func TestPTYAcceptAndCancel(t *testing.T) {
	// startAsking starts a receiver whose stdin is a terminal, and a
	// sender, and returns once the receiver asks.
	startAsking := func(t *testing.T, code string) (recv, send *proc.Proc, m *os.File, out *proc.Output) {
		m, out, recv, addr := ptyReceiver(t, ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", code, "--dir", t.TempDir()), true, 0)
		send = proc.Start(t, ferryCmd(t, "send", "--to", addr, "--code", code, "--json", writeTree(t)), true)
		out.WaitFor(t, "accept 2 files and ", 20*time.Second)
		out.WaitFor(t, "? [y/N] ", 5*time.Second)
		return recv, send, m, out
	}

	t.Run("yes", func(t *testing.T) {
		recv, send, m, out := startAsking(t, "676767")
		m.Write([]byte("y\n"))
		if c := send.Exit(30 * time.Second); c != 0 {
			t.Fatalf("send exit %d; stderr:\n%s", c, send.StderrText())
		}
		out.WaitFor(t, "received 2 files and ", 20*time.Second)
		// After a transfer by code, the receiver offers to trust the
		// sender; no leaves it untrusted and says how to change that.
		out.WaitFor(t, "so later transfers need no code? [y/N] ", 5*time.Second)
		m.Write([]byte("n\n"))
		if c := recv.Exit(20 * time.Second); c != 0 {
			t.Fatalf("receive exit %d; terminal:\n%s", c, out)
		}
		// The process has exited, but the last line may still be on its
		// way through the terminal to our reader.
		out.WaitFor(t, "to send without a code next time, run 'ferry trust add ", 5*time.Second)
	})

	for _, who := range []string{"sender", "receiver"} {
		t.Run("interrupt "+who, func(t *testing.T) {
			recv, send, _, out := startAsking(t, "686868")
			victim, other := send, recv
			if who == "receiver" {
				victim, other = recv, send
			}
			victim.Signal(os.Interrupt)
			if c := victim.Exit(20 * time.Second); c != exitDeclined {
				t.Errorf("%s interrupted: exit %d, want %d", who, c, exitDeclined)
			}
			if c := other.Exit(20 * time.Second); c != exitDeclined {
				t.Errorf("other end: exit %d, want %d", c, exitDeclined)
			}
			// The sender's stderr is complete once it exited; the
			// receiver's last line may still be on its way through the
			// terminal, so wait for it there.
			if want := "cancelled by the " + who + " (interrupt)"; !strings.Contains(send.StderrText(), want) {
				out.WaitFor(t, want, 5*time.Second)
			}
		})
	}
}

// TestPTYTwoQuestions: a receiver of two at once on a terminal asks
// about two waiting offers one at a time, in the order they came, each
// naming its sender: ann's first (declined), then bob's (accepted).
func TestPTYTwoQuestions(t *testing.T) {
	m, out, recv, addr := ptyReceiver(t, ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "696969", "--dir", t.TempDir(), "--max-transfers", "2"), true, 0)
	send := func(name string) *proc.Proc {
		return proc.Start(t, ferryCmd(t, "send", "--name", name, "--to", addr, "--code", "696969", "--json", writeTree(t)), true)
	}
	ann := send("ann")
	out.WaitFor(t, "from ann (", 20*time.Second)
	out.WaitFor(t, "? [y/N] ", 5*time.Second)
	bob := send("bob")
	out.WaitFor(t, "bob (", 20*time.Second)
	if strings.Contains(out.String(), "from bob (") {
		t.Fatalf("bob asked about while ann's question is open:\n%s", out)
	}
	m.Write([]byte("n\n"))
	if c := ann.Exit(30 * time.Second); c != exitDeclined {
		t.Errorf("ann's send exit %d, want %d", c, exitDeclined)
	}
	out.WaitFor(t, "from bob (", 20*time.Second)
	m.Write([]byte("y\n"))
	if c := bob.Exit(30 * time.Second); c != 0 {
		t.Fatalf("bob's send exit %d; stderr:\n%s", c, bob.StderrText())
	}
	out.WaitFor(t, "so later transfers need no code? [y/N] ", 20*time.Second)
	m.Write([]byte("n\n"))
	if c := recv.Exit(20 * time.Second); c != exitDeclined {
		t.Errorf("receive exit %d, want %d (ann's decline); terminal:\n%s", c, exitDeclined, out)
	}
	out.WaitFor(t, "1 of 2 transfers failed", 5*time.Second)
}
