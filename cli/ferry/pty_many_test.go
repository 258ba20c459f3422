//go:build linux

package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
	"golang.org/x/sys/unix"
)

// cursorMoves are the sequences that redraw the rows in place.
var cursorMoves = regexp.MustCompile(`\x1b\[\d*A|\x1b\[J`)

// TestPTYManyRowsFitWidth: "ferry send" to two real receivers with long
// names, on a terminal 60 columns wide. Every row of every redraw fits in
// 59 cells (a row that filled the last column would wrap and leave a
// line behind at each redraw), and a moving row is the progress line
// with the receiver's number, drawn by that receiver's progressbar bar. The messages printed once (connecting,
// the results) are not rows and may wrap.
func TestPTYManyRowsFitWidth(t *testing.T) {
	src := t.TempDir()
	big := testkit.SparseFile(t, filepath.Join(src, "big-holiday-photos-from-the-summer-of-2026.iso"), 96<<20)
	long := "the-living-room-computer-under-the-television"
	r1, a1 := startReceiver(t, t.TempDir(), "616161", "--yes", "--name", long)
	r2, a2 := startReceiver(t, t.TempDir(), "626262", "--yes", "--name", long+"-2")
	m, s := openPTY(t)
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 60}); err != nil {
		t.Fatal(err)
	}
	cmd := ferryCmd(t, "send", "--to", a1, "--to", a2, "--code", "616161", "--code", "626262", big)
	cmd.Stderr = s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
	out := ptyOutput(m)
	send := proc.Start(t, cmd, false)
	s.Close()
	if c := send.Exit(60 * time.Second); c != 0 {
		t.Fatalf("send exit %d; terminal:\n%q", c, out)
	}
	<-out.Closed
	got := out.String()
	moving := 0
	message := regexp.MustCompile(`^ferry: \[\d\] (connecting to|sent |not sent )`)
	row := regexp.MustCompile(`^ferry: \[[12]\] the-.*\d+% \[`)
	for _, line := range regexp.MustCompile(`\r|\n`).Split(cursorMoves.ReplaceAllString(got, "\n"), -1) {
		if message.MatchString(line) {
			continue // printed once, not redrawn: it may wrap as any message does
		}
		if w := cellWidth(line); w > 59 {
			t.Errorf("%d cells on a 60-column terminal: %q", w, line)
		}
		if row.MatchString(line) {
			moving++
			checkProgressbar(t, line) // each receiver's row is its own progressbar's
		}
	}
	if moving < 2 {
		t.Errorf("fewer than two progress rows:\n%q", got)
	}
	if !strings.Contains(got, "[1] sent 96 MiB") && !strings.Contains(got, "[1] sent 1 file") {
		t.Errorf("no result for receiver 1:\n%q", got)
	}
	for i, r := range []*proc.Proc{r1, r2} {
		if c := r.Exit(20 * time.Second); c != 0 {
			t.Errorf("receiver %d exit %d", i+1, c)
		}
	}
}
