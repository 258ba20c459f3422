package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// completionScript runs 'ferry completion SHELL' in process and writes
// the script to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	e, stdout, stderr := testEnv(t)
	if code := run(context.Background(), []string{"completion", shell}, e); code != exitOK {
		t.Fatalf("completion %s: exit %d; stderr:\n%s", shell, code, stderr)
	}
	path := filepath.Join(t.TempDir(), "ferry."+shell)
	if err := os.WriteFile(path, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// needShell skips when the shell is missing: tests/install-deps.sh
// installs bash, zsh and fish for CI.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	p, err := exec.LookPath(shell)
	if err != nil && os.Geteuid() == 0 { // make test installed it as root
		t.Fatalf("%s is not installed: tests/install-deps.sh installs it", shell)
	}
	if err != nil {
		t.Skipf("%s is not installed (tests/install-deps.sh installs it): cannot check its completion script", shell)
	}
	return p
}

func TestCompletionScriptsParse(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			sh := needShell(t, shell)
			script := completionScript(t, shell)
			if out, err := exec.Command(sh, "-n", script).CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}

// bashComplete sources the bash script and completes line (the last word
// being the one completed), as bash would on TAB.
func bashComplete(t *testing.T, script, dir, line string) []string {
	t.Helper()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	prog := `source "$1" && COMP_WORDS=(` + strings.Join(quoted, " ") + `) && COMP_CWORD=$((${#COMP_WORDS[@]}-1)) && _ferry && printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog, "bash", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("completing %q: %v\n%s", line, err, out)
	}
	return strings.Fields(string(out))
}

func TestBashCompletes(t *testing.T) {
	needShell(t, "bash")
	script := completionScript(t, "bash")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "photos"), 0o755)
	os.WriteFile(filepath.Join(dir, "report.pdf"), nil, 0o644)
	tests := []struct {
		line string
		want []string
	}{
		{"ferry se", []string{"send"}},
		{"ferry re", []string{"receive"}},
		{"ferry send --co", []string{"--code"}},
		{"ferry send --a", []string{"--as"}},
		{"ferry receive --ov", []string{"--overwrite"}},
		{"ferry recv --no-m", []string{"--no-mdns"}},
		{"ferry send rep", []string{"report.pdf"}},
		{"ferry receive --dir ", []string{"photos"}},
		{"ferry send --code ", nil},
		{"ferry trust ", []string{"list", "add", "remove"}},
		{"ferry completion ", []string{"bash", "zsh", "fish"}},
		{"ferry history --l", []string{"--limit"}},
		{"ferry send --no-h", []string{"--no-history"}},
		{"ferry peers --t", []string{"--timeout"}},
	}
	for _, tt := range tests {
		if got := bashComplete(t, script, dir, tt.line); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q completes to %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestFishCompletes(t *testing.T) {
	fish := needShell(t, "fish")
	script := completionScript(t, "fish")
	for line, want := range map[string]string{"ferry se": "send", "ferry send --co": "--code", "ferry receive --acc": "--accept-trusted"} {
		out, err := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, line).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		if first := strings.Split(strings.SplitN(string(out), "\n", 2)[0], "\t")[0]; first != want {
			t.Errorf("fish completes %q to %q, want %q", line, out, want)
		}
	}
}

func TestZshCompletionLoads(t *testing.T) {
	zsh := needShell(t, "zsh")
	script := completionScript(t, "zsh")
	out, err := exec.Command(zsh, "-f", "-c", `autoload -Uz compinit && compinit -u -D && source $1 && whence -w _ferry && print $_comps[ferry]`, "zsh", script).CombinedOutput()
	if err != nil || string(out) != "_ferry: function\n_ferry\n" {
		t.Errorf("zsh: %v\n%s", err, out)
	}
}

// TestCompletionCommandsMatch: the completions offer exactly the commands
// the usage lists, each of which run knows, and every flag that has a
// value completion is a flag of some command.
func TestCompletionCommandsMatch(t *testing.T) {
	offered := map[string]bool{}
	flags := map[string]bool{}
	for _, c := range shellCommands() {
		offered[c.name] = true
		for _, f := range c.shellFlags() {
			flags[f.name] = true
		}
		e, _, stderr := testEnv(t)
		args := []string{c.name, "--help"}
		if c.name == "help" {
			args = []string{"help"}
		}
		if code := run(context.Background(), args, e); code != exitOK {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^    ferry ([a-z]+)`).FindAllStringSubmatch(topUsage, -1) {
		if !offered[m[1]] {
			t.Errorf("the usage lists 'ferry %s', which the completions do not offer", m[1])
		}
	}
	for name := range valueKinds {
		if !flags[name] {
			t.Errorf("valueKinds names --%s, which no command has", name)
		}
	}
	// Every flag send and receive parse is offered, in the bash script's
	// line for the command.
	bash := bashCompletion(shellCommands())
	for cmd, fs := range map[string]*flag.FlagSet{"send)": sendFlags(&sendOpts{}), "receive|recv)": receiveFlags(&receiveOpts{})} {
		line := bash[strings.Index(bash, "        "+cmd):]
		line = line[:strings.Index(line, "\n")]
		offered := " " + strings.NewReplacer("'", " ", ";", " ").Replace(line) + " "
		fs.VisitAll(func(f *flag.Flag) {
			if dash := (shellFlag{name: f.Name}).dash(); !strings.Contains(offered, " "+dash+" ") {
				t.Errorf("%s parses %s, the bash completion does not offer it: %s", cmd, dash, line)
			}
		})
	}
	e, _, stderr := testEnv(t)
	if code := run(context.Background(), []string{"completion", "tcsh"}, e); code != exitUsage || !strings.Contains(stderr.String(), `no completion for shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d: %s", code, stderr)
	}
}
