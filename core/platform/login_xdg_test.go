//go:build unix && !darwin && !ios && !android

package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestLoginItemXDG writes the autostart entry under $XDG_CONFIG_HOME,
// checks it with desktop-file-validate when installed (it is in CI), runs
// its Exec line through a shell the way a desktop would split it, and
// removes it.
func TestLoginItemXDG(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	// A program path with the characters the Exec quoting must survive.
	bin := filepath.Join(t.TempDir(), `my "apps" $HOME 100%`, "ferry-gui")
	out := filepath.Join(t.TempDir(), "args")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > " + out + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l := LoginItem{ID: "io.github.ferry-project.ferry", Name: "Ferry", Comment: "Receive files", Command: []string{bin, "--hidden"}}
	want := filepath.Join(cfg, "autostart", "io.github.ferry-project.ferry.desktop")
	if got := l.Where(); got != want {
		t.Fatalf("Where = %s, want %s", got, want)
	}
	if on, err := l.Enabled(); err != nil || on {
		t.Fatalf("before Enable: Enabled = %v, %v", on, err)
	}
	if err := l.Enable(); err != nil {
		t.Fatal(err)
	}
	if on, err := l.Enabled(); err != nil || !on {
		t.Fatalf("after Enable: Enabled = %v, %v", on, err)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s:\n%s", want, b)
	v := testkit.NeedTool(t, "desktop-file-validate", "validating the autostart entry")
	if out, err := exec.Command(v, want).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s", err, out)
	}

	// The Exec line, unescaped as a string value (\\ to \), then split
	// by a POSIX shell, whose double-quote rules are the spec's.
	var exe string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Exec="); ok {
			exe = strings.ReplaceAll(strings.ReplaceAll(v, `\\`, `\`), "%%", "%")
		}
	}
	if exe == "" {
		t.Fatal("no Exec line")
	}
	if out, err := exec.Command("sh", "-c", exe).CombinedOutput(); err != nil {
		t.Fatalf("running the Exec line %s: %v\n%s", exe, err, out)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != bin+"\n--hidden\n" {
		t.Errorf("the Exec line ran %q, want %q", got, bin+"\n--hidden\n")
	}

	if err := l.Disable(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("after Disable the entry is still there: %v", err)
	}
	if err := l.Disable(); err != nil {
		t.Errorf("Disable of a missing entry: %v", err)
	}
	if err := (LoginItem{ID: "x", Command: []string{"relative"}}).Enable(); err == nil {
		t.Error("Enable with a relative program path succeeded")
	}
}
