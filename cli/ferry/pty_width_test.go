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
	"golang.org/x/sys/unix"
)

// barDraw matches one drawing of the progress line in a terminal stream.
var barDraw = regexp.MustCompile(`ferry: [^\r\n]*\d+% [^\r\n]*`)

// TestPTYBarFitsWidth: on a terminal 60 columns wide, every drawing of
// the progress line fits in 59 cells (a line that fills the last column
// wraps, and each redraw then leaves a line behind), the long file name
// is what gives way, every drawing is a progressbar bar's rendering, and
// the last drawing names the transfer, not its last file.
func TestPTYBarFitsWidth(t *testing.T) {
	for _, cols := range []uint16{60, 120} {
		t.Run(itoaCols(cols), func(t *testing.T) {
			src := t.TempDir()
			long := filepath.Join(src, "big-holiday-photos-from-the-summer-of-2026.iso")
			testkit.SparseFile(t, long, 96<<20)
			os.WriteFile(filepath.Join(src, "notes.txt"), []byte("hello"), 0o644)

			recv, addr := startReceiver(t, t.TempDir(), "606060", "--yes")
			m, s := openPTY(t)
			if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
				t.Fatal(err)
			}
			cmd := ferryCmd(t, "send", "--to", addr, "--code", "606060", filepath.Join(src, "notes.txt"), long)
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
			draws := barDraw.FindAllString(got, -1)
			if len(draws) < 2 {
				t.Fatalf("fewer than two drawings of the bar:\n%q", got)
			}
			for _, d := range draws {
				if w := cellWidth(strings.TrimRight(d, " ")); w > int(cols)-1 {
					t.Errorf("%d cells on a %d-column terminal: %q", w, cols, d)
				}
				checkProgressbar(t, strings.TrimRight(d, " "))
			}
			if !strings.Contains(got, "big-") || !strings.Contains(got, "6.iso") {
				t.Errorf("the file name was not shown, or cut when it fit:\n%q", draws)
			}
			last := strings.TrimRight(draws[len(draws)-1], " ")
			if !strings.HasPrefix(last, "ferry: 2 files (96 MiB) 100% [") || !strings.HasSuffix(last, "█]") {
				t.Errorf("last drawing %q, want the summary at 100%%", last)
			}
			if c := recv.Exit(20 * time.Second); c != 0 {
				t.Errorf("receive exit %d", c)
			}
		})
	}
}

func itoaCols(c uint16) string {
	if c == 60 {
		return "60 columns"
	}
	return "120 columns"
}

// TestPTYStdinTerminalRefused: "ferry send -" with a terminal on
// standard input is refused before anything is read or dialled: nobody
// types a file.
func TestPTYStdinTerminalRefused(t *testing.T) {
	_, s := openPTY(t)
	cmd := ferryCmd(t, "send", "--to", "127.0.0.1:9", "--code", "123456", "-")
	cmd.Stdin = s
	_, stderr, code := proc.Run(t, cmd)
	if code != exitUsage || !strings.Contains(stderr, "standard input is a terminal, not data to send") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
	}
}
