package main

// The two ways a ferry binary learns its version, each shown on a real
// build: make stamps it with -ldflags -X, `go install ...@vX` leaves it in
// the build info. Both run the go tool, so they skip under -short.

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository root: %v", err)
	}
	return root
}

func firstLine(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s version: %v\n%s", bin, err, out)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// TestVersionStampedByMake builds through the Makefile's own rule, so a
// change to its -X flag or to the variable's name fails here.
func TestVersionStampedByMake(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary with make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed: %v", err)
	}
	out := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "-C", repoRoot(t), "ferry", "BIN="+out, "VERSION=v7.7.7-3-gabcdef0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make ferry: %v\n%s", err, b)
	}
	// A build that records its git commit adds it after the version.
	if got, want := firstLine(t, filepath.Join(out, "ferry")), "ferry v7.7.7-3-gabcdef0"; got != want && !strings.HasPrefix(got, want+" ") {
		t.Errorf("ferry version says %q, want %q", got, want)
	}
}

// TestVersionFromGoInstall runs `go install github.com/ferry-project/ferry/cli/ferry@v0.7.8`
// as a user would, with this tree served as that version from a module
// proxy in a temporary folder (dependencies come from the local module
// cache, then the usual proxy). Nothing is stamped: the version is the
// one debug.ReadBuildInfo reports.
func TestVersionFromGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary with go install")
	}
	const modPath, ver = "github.com/ferry-project/ferry", "v0.7.8"
	root := repoRoot(t)
	tmp := t.TempDir()

	// The proxy's layout: list, .info, .mod and .zip under @v/.
	vdir := filepath.Join(tmp, "proxy", modPath, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":        []byte(ver + "\n"),
		ver + ".info": []byte(`{"Version":"` + ver + `","Time":"2026-01-01T00:00:00Z"}`),
		ver + ".mod":  gomod,
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zf, err := os.Create(filepath.Join(vdir, ver+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	files := moduleFiles(t, root)
	if err := modzip.Create(zf, module.Version{Path: modPath, Version: ver}, files); err != nil {
		t.Fatalf("zipping the module: %v", err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}

	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goBin, "env", "GOMODCACHE", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Fields(string(out))
	if len(env) != 2 {
		t.Fatalf("go env: %q", out)
	}
	modCache := filepath.Join(tmp, "modcache")
	goEnv := append(os.Environ(),
		"GOPROXY=file://"+filepath.Join(tmp, "proxy")+",file://"+filepath.Join(env[0], "cache", "download")+","+env[1],
		"GOSUMDB=off", // the checksum database has never seen v0.7.8
		"GOMODCACHE="+modCache,
		"GOBIN="+filepath.Join(tmp, "bin"),
		"GOFLAGS=",
		"GOTOOLCHAIN=local",
	)
	// The module cache is written read-only; go clean can remove it.
	t.Cleanup(func() {
		clean := exec.Command(goBin, "clean", "-modcache")
		clean.Env = goEnv
		clean.Run()
	})
	install := exec.Command(goBin, "install", modPath+"/cli/ferry@"+ver)
	install.Env = goEnv
	install.Dir = tmp // outside the main module, as for a user
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, b)
	}
	if got, want := firstLine(t, filepath.Join(tmp, "bin", "ferry")), "ferry "+ver; got != want {
		t.Errorf("ferry version says %q, want %q", got, want)
	}
}

// moduleFiles lists the tree as a release would hold it: what git tracks
// or would track (so no bin/ or other ignored build outputs), less what
// the module zip rules leave out.
func moduleFiles(t *testing.T, root string) []modzip.File {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []modzip.File
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			files = append(files, dirFile{rel: rel, path: path})
		}
	}
	return files
}

// dirFile is one file of the tree, as modzip.Create reads it.
type dirFile struct{ rel, path string }

func (f dirFile) Path() string                 { return f.rel }
func (f dirFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.path) }
func (f dirFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }
