package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// testEnv is a process environment with buffers for stdio and no
// terminal anywhere.
func testEnv(t *testing.T) (*env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	return &env{
		stdin:   strings.NewReader(""),
		stdout:  &stdout,
		stderr:  &stderr,
		getenv:  func(k string) string { return vars[k] },
		now:     time.Now,
		signals: make(chan os.Signal),
		exit:    func(code int) { t.Fatalf("forced exit %d", code) },
	}, &stdout, &stderr
}

// stderrLine is what output rules 2 to 4 allow on stderr: a prefixed,
// lowercase message without a trailing period.
// Indented lines list names (an offer's entries), which are printed as
// they are.
var stderrLine = regexp.MustCompile(`^ferry: ((error: |hint: |warning: )?[a-z0-9'"\-/.(]|  +\S)`)

func checkStderr(t *testing.T, stderr string, wantError bool) {
	t.Helper()
	errors := 0
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, "Usage:") || strings.HasPrefix(l, " ") || !strings.HasPrefix(l, "ferry") {
			continue // the usage text, printed as is
		}
		if !stderrLine.MatchString(l) {
			t.Errorf("stderr line breaks the output rules: %q", l)
		}
		if strings.HasSuffix(l, ".") {
			t.Errorf("stderr line ends with a period: %q", l)
		}
		if strings.HasPrefix(l, "ferry: error: ") {
			errors++
		}
	}
	if wantError && errors != 1 || !wantError && errors != 0 {
		t.Errorf("got %d error lines, want %v:\n%s", errors, wantError, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	os.WriteFile(file, []byte("hello"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string // substring of the error line
	}{
		{"no command", nil, exitUsage, "no command given"},
		{"unknown command", []string{"fly"}, exitUsage, `unknown command "fly"`},
		{"unknown flag", []string{"send", "--bogus", file}, exitUsage, "unknown flag --bogus"},
		{"flag without value", []string{"send", file, "--code"}, exitUsage, "flag --code needs a value"},
		{"nothing to send", []string{"send", "--to", "127.0.0.1:9", "--code", "123456"}, exitUsage, "nothing to send"},
		{"to and peer", []string{"send", "--to", "127.0.0.1:9", "--peer", "x", file}, exitUsage, "cannot be used together"},
		{"to without port", []string{"send", "--to", "127.0.0.1", file}, exitUsage, "bad --to address"},
		{"to port out of range", []string{"send", "--to", "127.0.0.1:70000", file}, exitUsage, "bad --to address"},
		{"no code off a terminal", []string{"send", "--to", "127.0.0.1:9", file}, exitUsage, "no code given"},
		{"no receiver off a terminal", []string{"send", "--code", "123456", file}, exitUsage, "no receiver given"},
		{"no code with json", []string{"send", "--json", "--to", "127.0.0.1:9", file}, exitUsage, "--json asks nothing"},
		{"missing path", []string{"send", "--to", "127.0.0.1:9", "--code", "123456", filepath.Join(dir, "nope")}, exitUsage, "no such file or folder"},
		{"missing path after flags", []string{"send", file, filepath.Join(dir, "nope"), "--to", "127.0.0.1:9", "--code", "123456"}, exitUsage, "no such file or folder"},
		{"not a regular file", []string{"send", "--to", "127.0.0.1:9", "--code", "123456", fifo}, exitUsage, "not a regular file or folder"},
		{"receive operand", []string{"receive", "somewhere"}, exitUsage, `unexpected argument "somewhere"`},
		{"receive bad listen", []string{"receive", "--listen", "nowhere"}, exitUsage, "bad --listen address"},
		{"receive missing dir", []string{"receive", "--dir", filepath.Join(dir, "nope")}, exitUsage, "no such folder"},
		{"receive dir is a file", []string{"receive", "--dir", file}, exitUsage, "not a folder"},
		{"peers bad timeout", []string{"peers", "--timeout", "soon"}, exitUsage, "invalid value"},
		{"peers zero timeout", []string{"peers", "--timeout", "0s"}, exitUsage, "above zero"},
		{"unknown iface", []string{"peers", "--iface", "nosuch0"}, exitUsage, `no network interface "nosuch0"`},
		{"unknown iface on send", []string{"send", "--iface", "nosuch0", "--peer", "x", file}, exitUsage, "no network interface"},
		{"version operand", []string{"version", "now"}, exitUsage, "unexpected argument"},
		{"help unknown", []string{"help", "fly"}, exitUsage, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, stdout, stderr := testEnv(t)
			code := run(context.Background(), tt.args, e)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr.String(), "ferry: error: ") || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr does not say %q:\n%s", tt.wantErr, stderr)
			}
			if !strings.Contains(stderr.String(), "ferry: hint: ") {
				t.Errorf("usage error without a hint:\n%s", stderr)
			}
			wantStdout := ""
			if slices.Contains(tt.args, "--json") {
				wantStdout = `{"event":"error","kind":"usage",`
			}
			if !strings.HasPrefix(stdout.String(), wantStdout) || wantStdout == "" && stdout.Len() != 0 {
				t.Errorf("stdout %q, want %q", stdout, wantStdout)
			}
			checkStderr(t, stderr.String(), true)
		})
	}
}

func TestJSONUsageErrorIsAnEvent(t *testing.T) {
	e, stdout, stderr := testEnv(t)
	code := run(context.Background(), []string{"send", "--json", "--to", "127.0.0.1:9", "--code", "123456", "/no/such/path"}, e)
	if code != exitUsage {
		t.Fatalf("exit code %d, want %d", code, exitUsage)
	}
	want := `{"event":"error","kind":"usage","exit_code":2,"message":"no such file or folder: /no/such/path","hint":"check the path: nothing was sent"}` + "\n"
	if stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	checkStderr(t, stderr.String(), true)
}

func TestHelpAndVersion(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "ferry receive"},
		{[]string{"--help"}, "Exit codes:"},
		{[]string{"help", "send"}, "Usage: ferry send"},
		{[]string{"send", "--help"}, "Usage: ferry send"},
		{[]string{"receive", "-h"}, "Usage: ferry receive"},
		{[]string{"peers", "--help"}, "Usage: ferry peers"},
		{[]string{"version"}, "\nprotocol 2\ngo"},
	}
	for _, tt := range tests {
		e, stdout, stderr := testEnv(t)
		if code := run(context.Background(), tt.args, e); code != exitOK {
			t.Errorf("%v: exit code %d, stderr %q", tt.args, code, stderr)
		}
		if !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("%v: stdout lacks %q:\n%s", tt.args, tt.want, stdout)
		}
		if stderr.Len() != 0 {
			t.Errorf("%v: stderr should be empty, got %q", tt.args, stderr)
		}
	}
}

func TestInterspersedFlags(t *testing.T) {
	o, err := parseSend([]string{"a", "--code", "123456", "b", "--to", "h:1", "--", "--c"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.paths, ","); got != "a,b,--c" || o.code != "123456" || o.to != "h:1" {
		t.Errorf("got paths %q code %q to %q", got, o.code, o.to)
	}
	o2, err := parseReceive([]string{"--iface", "lo", "--iface", "eth0", "-y", "--quiet"})
	if err != nil {
		t.Fatal(err)
	}
	if !o2.yes || !o2.quiet || strings.Join(o2.ifaces, ",") != "lo,eth0" {
		t.Errorf("got %+v", o2)
	}
}
