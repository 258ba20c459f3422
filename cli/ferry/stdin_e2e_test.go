package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/proc"
)

// TestE2ESendStdin: "-" sends standard input as a file (named stdin, or
// --as), spooled through a private temporary folder that is gone
// afterwards; "--text -" sends it as a text snippet; input past the text
// limit is refused before anything is dialled.
func TestE2ESendStdin(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the sender's spool goes here, to be checked

	t.Run("file", func(t *testing.T) {
		dest := t.TempDir()
		recv, addr := startReceiver(t, dest, "135791", "--yes", "--keep")
		data := make([]byte, 3<<20+17)
		rand.Read(data)
		for _, tc := range []struct{ name, want string }{{"", "stdin"}, {"photos.tar", "photos.tar"}} {
			args := []string{"send", "--to", addr, "--code", "135791"}
			if tc.name != "" {
				args = append(args, "--as", tc.name)
			}
			cmd := ferryCmd(t, append(args, "-")...)
			cmd.Stdin = bytes.NewReader(data)
			_, stderr, code := proc.Run(t, cmd)
			if code != exitOK {
				t.Fatalf("send - exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "reading standard input into a temporary file first") {
				t.Errorf("the spool was not explained:\n%s", stderr)
			}
			checkStderr(t, stderr, false)
			if got, err := os.ReadFile(filepath.Join(dest, tc.want)); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s did not arrive intact (%d bytes): %v", tc.want, len(got), err)
			}
			if fi, err := os.Stat(filepath.Join(dest, tc.want)); err == nil && fi.Mode().Perm()&0o044 == 0 {
				t.Errorf("%s arrived private (%v): the spool's mode leaked", tc.want, fi.Mode())
			}
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "ferry-stdin-*")); len(left) != 0 {
			t.Errorf("spool left behind in TMPDIR: %v", left)
		}
		recv.Signal(os.Interrupt)
		recv.Exit(20 * time.Second)
	})

	t.Run("text", func(t *testing.T) {
		recv, addr := startReceiver(t, t.TempDir(), "135792", "--yes")
		cmd := ferryCmd(t, "send", "--to", addr, "--code", "135792", "--text", "-")
		cmd.Stdin = strings.NewReader("line one\nline two\n")
		if _, stderr, code := proc.Run(t, cmd); code != exitOK {
			t.Fatalf("send --text - exit %d; stderr:\n%s", code, stderr)
		}
		if ev := recv.Until("text", 20*time.Second); ev["text"] != "line one\nline two\n" {
			t.Errorf("text event %v", ev)
		}
		if c := recv.Exit(20 * time.Second); c != exitOK {
			t.Errorf("receive exit %d", c)
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			args  []string
			stdin string
			want  string
		}{
			{[]string{"--text", "-"}, strings.Repeat("x", 1<<20+1), "over the 1.0 MiB limit for a text"},
			{[]string{"--text", "-"}, "", "standard input was empty"},
			{[]string{"--text", "-", "-"}, "x", "- and --text - cannot be used together"},
			{[]string{"-", "-"}, "x", "standard input (-) is given twice"},
			{[]string{"--as", "a/b", "-"}, "x", `bad --as "a/b"`},
			{[]string{"--as", "x.tar", "--text", "hi"}, "x", "--as without -"},
		} {
			cmd := ferryCmd(t, append([]string{"send", "--to", "127.0.0.1:9", "--code", "135793"}, tc.args...)...)
			cmd.Stdin = strings.NewReader(tc.stdin)
			_, stderr, code := proc.Run(t, cmd)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "connecting") {
				t.Errorf("%v: exit %d, want %d with %q, nothing dialled; stderr:\n%s", tc.args, code, exitUsage, tc.want, stderr)
			}
		}
	})
}
