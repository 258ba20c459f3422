//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestPTYReceiveManyRows: "ferry receive --max-transfers 2" on a terminal
// 70 columns wide, two real senders at once (the first frozen mid-stream
// while the second runs). Its rows are redrawn in
// place; one redraw holds a progress row for each sender at once, each
// the transfer's number and its sender's name before that transfer's
// own progressbar bar; every row fits in 69 cells; and each row settles
// to its result line ("[N] ann: done, checked: ...").
func TestPTYReceiveManyRows(t *testing.T) {
	dest := t.TempDir()
	_, out, recv, addr := ptyReceiver(t, ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "717171", "--dir", dest,
		"--max-transfers", "2", "--yes", "--keep"), false, 70)

	sizes := map[string]string{"ann": "1.0 GiB", "bob": "128 MiB"}
	send := func(name string, size int64) *proc.Proc {
		src := testkit.SparseFile(t, filepath.Join(t.TempDir(), name+".iso"), size)
		return proc.Start(t, ferryCmd(t, "send", "--name", name, "--to", addr, "--code", "717171", "--json", src), true)
	}
	// ann is frozen mid-stream (SIGSTOP) once its row shows bytes, so
	// that bob runs beside it whatever the machine's load; it goes on
	// after bob is done. ann's 1 GiB keeps it sending for a second or
	// more after its first bytes show, so the stop lands mid-stream.
	ann := send("ann", 1<<30)
	out.WaitFor(t, "/1.0 GiB", 30*time.Second)
	ann.Signal(syscall.SIGSTOP)
	bob := send("bob", 128<<20)
	if c := bob.Exit(90 * time.Second); c != 0 {
		t.Fatalf("bob's send exit %d; stderr:\n%s", c, bob.StderrText())
	}
	ann.Signal(syscall.SIGCONT)
	if c := ann.Exit(90 * time.Second); c != 0 {
		t.Fatalf("ann's send exit %d; stderr:\n%s", c, ann.StderrText())
	}
	for _, name := range []string{"ann", "bob"} {
		out.WaitFor(t, "received 1 file ("+sizes[name]+") from "+name, 20*time.Second)
	}
	recv.Signal(syscall.SIGTERM)
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Errorf("receive exit %d; terminal:\n%q", c, out)
	}
	<-out.Closed
	got := out.String()

	rows := map[string]*regexp.Regexp{}
	for _, name := range []string{"ann", "bob"} {
		rows[name] = regexp.MustCompile(`(?m)^ferry: \[\d+\] ` + name + ` .*\d+% \[`)
	}
	both := false
	// A redraw begins where the last one was wiped (cursor up, erase).
	for _, frame := range regexp.MustCompile(`\x1b\[\d+A\r\x1b\[J`).Split(got, -1) {
		frame = strings.ReplaceAll(frame, "\r", "\n")
		if rows["ann"].MatchString(frame) && rows["bob"].MatchString(frame) {
			both = true
		}
		for _, line := range strings.Split(frame, "\n") {
			if !strings.HasPrefix(line, "ferry: [") || strings.Contains(line, ": done, checked") {
				continue // a message, printed once: it may wrap
			}
			if w := cellWidth(line); w > 69 {
				t.Errorf("%d cells on a 70-column terminal: %q", w, line)
			}
			if rows["ann"].MatchString(line) || rows["bob"].MatchString(line) {
				checkProgressbar(t, line)
			}
		}
	}
	if !both {
		t.Errorf("no redraw shows both senders' rows:\n%q", got)
	}
	for _, name := range []string{"ann", "bob"} {
		settled := regexp.MustCompile(`(?m)^ferry: \[\d+\] ` + name + ` \(.*\): done, checked: 1 file \(` + sizes[name] + `\)`)
		if !settled.MatchString(strings.ReplaceAll(cursorMoves.ReplaceAllString(got, "\n"), "\r", "\n")) {
			t.Errorf("%s's row did not settle to its result line:\n%q", name, got)
		}
	}
}

// TestPTYCancelOneIncoming: on a terminal, the person cancels one of two
// incoming transfers by typing its number and saying yes. ann's 1 GiB
// is frozen mid-stream; typing its number asks "cancel [N] from ann?",
// and a yes cuts it alone: its row settles to "cancelled", its partial
// file stays for a resume, ann's sender is told the receiver cancelled,
// and bob's transfer, running beside it, completes. A word that is not
// a number, or the number of no transfer in progress, gets a line that
// says so and cancels nothing.
func TestPTYCancelOneIncoming(t *testing.T) {
	dest := t.TempDir()
	m, out, recv, addr := ptyReceiver(t, ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "727272", "--dir", dest,
		"--max-transfers", "2", "--yes", "--keep"), true, 100)
	send := func(name string, size int64) *proc.Proc {
		src := testkit.SparseFile(t, filepath.Join(t.TempDir(), name+".iso"), size)
		return proc.Start(t, ferryCmd(t, "send", "--name", name, "--to", addr, "--code", "727272", "--json", src), true)
	}
	type_ := func(s string) {
		if _, err := m.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}

	ann := send("ann", 1<<30)
	out.WaitFor(t, "/1.0 GiB", 30*time.Second)
	ann.Signal(syscall.SIGSTOP) // a failed test's cleanup kills it, stopped or not
	out.WaitFor(t, "to cancel one transfer, type its number", 10*time.Second)
	row := regexp.MustCompile(`\[(\d+)\] ann \(([0-9A-Z-]+)\)`).FindStringSubmatch(out.String())
	if row == nil {
		t.Fatalf("no row for ann:\n%q", out)
	}
	id, fp := row[1], row[2]

	type_("hello\n")
	out.WaitFor(t, `"hello" is not a transfer's number`, 10*time.Second)
	bob := send("bob", 128<<20)
	type_("99\n")
	out.WaitFor(t, "no transfer [99] is in progress", 10*time.Second)
	type_(id + "\n")
	out.WaitFor(t, "cancel ["+id+"] from ann", 10*time.Second)
	type_("y\n")
	out.WaitFor(t, "["+id+"] ann ("+fp+"): cancelling…", 10*time.Second)
	if c := bob.Exit(90 * time.Second); c != 0 {
		t.Fatalf("bob's send exit %d; stderr:\n%s", c, bob.StderrText())
	}
	out.WaitFor(t, "received 1 file (128 MiB) from bob", 20*time.Second)
	out.WaitFor(t, "so later transfers need no code? [y/N] ", 10*time.Second)
	type_("n\n")
	out.WaitFor(t, "cancelled the transfer from ann", 20*time.Second)
	ann.Signal(syscall.SIGCONT)
	if c := ann.Exit(30 * time.Second); c == 0 {
		t.Fatal("ann's send succeeded after the receiver cancelled it")
	}
	if msg := ann.StderrText(); !strings.Contains(msg, "the receiver ended the transfer: cancelled") {
		t.Errorf("ann's sender was not told the receiver cancelled:\n%s", msg)
	}
	recv.Signal(syscall.SIGTERM)
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Errorf("receive exit %d; terminal:\n%q", c, out)
	}
	<-out.Closed
	// What the person typed under the one row is wiped with it
	// (TestInRowsTypedAndCancelling); a redraw by the ticker between
	// the echo and Ferry's read of the line may come first, so this is
	// only logged here.
	if !strings.Contains(out.String(), "hello\r\n\x1b[2A\r\x1b[J") {
		t.Logf("the typed line was not wiped at the first redraw:\n%q", out)
	}
	got := strings.ReplaceAll(cursorMoves.ReplaceAllString(out.String(), "\n"), "\r", "\n")
	if !regexp.MustCompile(`(?m)^ferry: \[` + id + `\] ann \(.*\): cancelled$`).MatchString(got) {
		t.Errorf("ann's row did not settle to cancelled:\n%q", got)
	}
	if strings.Contains(got, "failed") {
		t.Errorf("a transfer the person cancelled is reported as a failure:\n%q", got)
	}
	if names := testkit.FinalNames(t, dest); len(names) != 1 || names[0] != "bob.iso" {
		t.Errorf("destination holds %v, want only bob.iso", names)
	}
	if parts, err := os.ReadDir(filepath.Join(dest, testkit.PartialFolder)); err != nil || len(parts) != 1 {
		t.Errorf("partial folder holds %v (%v), want ann's one partial file", parts, err)
	}
}
