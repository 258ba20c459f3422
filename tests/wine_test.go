package tests

// The Windows CLI, run for real: the windows/amd64 ferry.exe under
// Debian's Wine 8.0 (wine64) against the Linux ferry, over loopback, both
// directions. Everything is real but the operating system under ferry.exe:
// Wine stands in for Windows because no Windows can run here.
//
// Wine is not Windows, and where Wine 8.0 lacks something that every
// Windows 10 or 11 has, this test supplies it, in the test only, and says
// exactly which call fails without it:
//
//  1. bcryptprimitives.dll is missing, and Go's runtime stops at start
//     ("fatal error: bcryptprimitives.dll not found"): it loads the DLL
//     with LoadLibraryExW(LOAD_LIBRARY_SEARCH_SYSTEM32) and calls
//     ProcessPrng for all randomness. tests/wine/bcryptprimitives.c, built
//     with mingw-w64, forwards ProcessPrng to RtlGenRandom. Because of
//     the SYSTEM32-only search it must go into the prefix's system32;
//     beside ferry.exe it is never found.
//  2. NtSetInformationFile answers FileDispositionInformationEx (class 64)
//     with STATUS_NOT_IMPLEMENTED ("fixme:file:NtSetInformationFile
//     Unsupported class (64)"). Windows 10 1607 and later implement it,
//     and older Windows answers STATUS_INVALID_INFO_CLASS, on which Go
//     falls back to FileDispositionInfo; STATUS_NOT_IMPLEMENTED is not
//     among Go's fallback codes, so every delete through a folder handle
//     (internal/syscall/windows.Deleteat: os.Root.Remove, os.RemoveAll)
//     fails with "Invalid function", and a receiver cannot move a partial
//     file into place. The test builds ferry.exe with one extra file,
//     given through -overlay so that it never enters the source tree, that
//     sets Go's own switch for that fallback (TestDeleteatFallback, reached
//     by go:linkname, hence -checklinkname=0). The fallback is the path
//     Go takes on Windows versions before 1607, so the code under test is
//     still Go's and ferry's.
//  3. Wine keeps no access list of its own for a file: it derives one from
//     the Unix mode bits (the owner's bits for this user, the others' bits
//     for Everyone), and its SetNamedSecurityInfoW ignores
//     PROTECTED_DACL_SECURITY_INFORMATION and merges the folder's
//     inherited entries back in. With the usual umask 022 every file is
//     readable by Everyone, so ferry's access-list check (core/platform)
//     rightly refuses the static key it made on the first run. On Windows
//     %LOCALAPPDATA% passes on only the user's, SYSTEM's and the
//     Administrators' entries, and MakePrivate's protected list holds. The
//     Wine processes here run with umask 077, so Wine derives that same
//     private list; a file opened to Everyone is still refused (core/
//     platform's TestOpenFileRefused, run under Wine below).
//  4. Wine converts file names with the Unix locale's character set: the
//     processes get LANG=C.UTF-8 so that Unicode names are UTF-8 on disk,
//     as they are on the Linux side.
//
// Wine also lacks, with no workaround needed: ntdll's
// NtCreateWaitCompletionPacket and its kin, which Go's runtime looks up
// as optional and, missing, replaces with its older way of waiting, so
// under Wine ferry.exe runs that fallback rather than what Windows 10 and
// 11 run; and the message texts of the Winsock errors, so a busy port
// reads "bind: winapi error #10048" here where Windows names the error.
//
// What Wine cannot show: mDNS (every run here uses --to and --no-mdns;
// discovery on Windows is another issue's), a real console (standard
// streams are pipes here, so the plain progress lines are what is
// exercised, and Ctrl-C arrives as Wine's translation of SIGINT), NTFS's
// own access lists, and a full disk.

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/tests/proc"
)

// deleteatFallback is the file that -overlay adds to ferry.exe and to the
// Windows test binary of core/platform (workaround 2 above).
const deleteatFallback = `package %s

import _ "unsafe"

// Wine 8.0 answers FileDispositionInformationEx with STATUS_NOT_IMPLEMENTED,
// which Go does not fall back on: take Go's fallback from the start. Added by
// tests/wine_test.go for the run under Wine only.
//
//go:linkname wineDeleteatFallback internal/syscall/windows.TestDeleteatFallback
var wineDeleteatFallback bool

func init() { wineDeleteatFallback = true }
`

// wine is one Wine prefix, in the test's temporary folder, that runs the
// windows/amd64 ferry.exe.
type wine struct {
	wine64 string   // the loader
	server string   // wineserver
	env    []string // WINEPREFIX and the rest, for every Wine process
	prefix string
	exe    string // ferry.exe
	tests  string // core/platform's Windows test binary
	cli    string // cli/ferry's Windows test binary
	names  string // core/receive's Windows test binary (the rules between names)
	place  string // core/place's Windows test binary (the name rules)
}

// findWine returns Debian's wine64 loader and wineserver, which the
// wine64 package installs outside PATH.
func findWine() (wine64, server string, ok bool) {
	for _, dir := range []string{"/usr/lib/wine", "/usr/lib64/wine", "/usr/bin"} {
		w, s := filepath.Join(dir, "wine64"), filepath.Join(dir, "wineserver")
		if _, err := os.Stat(w); err == nil {
			if _, err := os.Stat(s); err == nil {
				return w, s, true
			}
		}
	}
	return "", "", false
}

// wineStep is one part of a Wine test's setup; newWine runs them side by
// side and reports how long each took.
type wineStep struct {
	what string
	do   func() error
}

// newWine makes a Wine prefix in the test's temporary folder, with
// ferry.exe built and the bcryptprimitives.dll shim installed (workaround
// 1). Its processes see display as DISPLAY ("": none, as for the CLI).
// more returns the test's own setup steps (builds, mostly), which run
// beside the prefix's making; dir is the test's folder for what they
// write.
func newWine(t *testing.T, display string, more func(w *wine, dir string) []wineStep) *wine {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the windows build runs under Wine on linux/amd64 only")
	}
	if testing.Short() {
		t.Skip("short: the windows build under Wine takes a minute")
	}
	wine64, server, ok := findWine()
	if !ok {
		// As root make test has installed it: missing, it fails, as
		// testkit.NeedTool does for a tool on PATH.
		if os.Geteuid() == 0 {
			t.Fatal("wine64 is not installed, and the windows build runs under it: tests/install-deps.sh installs it")
		}
		t.Skip("not root (as root, where make test installs it, this fails): wine64 is not installed, and the windows build runs under it")
	}
	testkit.NeedTool(t, "x86_64-w64-mingw32-gcc", "the cgo build for Windows")
	dir := t.TempDir()
	w := &wine{wine64: wine64, server: server, prefix: filepath.Join(dir, "prefix")}
	w.env = []string{
		"WINEPREFIX=" + w.prefix,
		"WINEARCH=win64",
		"WINEDEBUG=-all", // Wine's own fixme lines would mix with ferry's stderr
		// No Mono or Gecko install prompt, no menu entries: a faster first start.
		"WINEDLLOVERRIDES=mscoree,mshtml=;winemenubuilder.exe=d",
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8", // workaround 4
		"DISPLAY=" + display,
		// Wine links the prefix's Desktop, Downloads and the rest to
		// folders of $HOME: a home of its own keeps it out of root's.
		"HOME=" + filepath.Join(dir, "home"),
	}

	w.exe = filepath.Join(dir, "ferry.exe")
	dll := filepath.Join(dir, "bcryptprimitives.dll")
	src, err := filepath.Abs(filepath.Join("wine", "bcryptprimitives.c"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{w.prefix, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The prefix takes longest to make (wineboot installs Wine's own
	// programs and services): the builds run beside it. One wineserver
	// serves the whole test, so each ferry.exe start skips starting one;
	// it is killed at cleanup with everything it ran.
	t.Cleanup(func() { w.raw(w.server, "-k").Run() })
	steps := []wineStep{
		{"built ferry.exe for windows/amd64", func() error {
			return w.build(dir, "cli/ferry", "main", false, "build", "-o", w.exe, "./cli/ferry")
		}},
		{"built the bcryptprimitives.dll shim", func() error {
			out, err := exec.Command("x86_64-w64-mingw32-gcc", "-O2", "-shared", "-s", "-o", dll, src, "-ladvapi32").CombinedOutput()
			if err != nil {
				return fmt.Errorf("building the ProcessPrng shim: %v\n%s", err, out)
			}
			return nil
		}},
		{"made the Wine prefix", func() error {
			// -p60: it outlives each ferry.exe, and even a test that
			// dies without its cleanup, by a minute only.
			if err := w.run("starting wineserver", w.server, "-p60"); err != nil {
				return err
			}
			err := w.run("making the Wine prefix", w.wine64, "wineboot", "--init")
			if err == nil {
				return nil
			}
			// A CI run once saw wineboot exit 1 within two seconds,
			// printing nothing under WINEDEBUG=-all. This setup is
			// Wine's, not Ferry's: say so, then make the prefix once
			// more with a fresh wineserver and Wine's error channel on,
			// so that a second failure says why.
			t.Logf("Wine's first wineboot failed, trying once more with WINEDEBUG=err+all: %v", err)
			w.raw(w.server, "-k").Run()
			if err := w.run("starting wineserver again", w.server, "-p60"); err != nil {
				return err
			}
			return w.run("making the Wine prefix (second try)", "env", "WINEDEBUG=err+all", w.wine64, "wineboot", "--init")
		}},
	}
	if more != nil {
		steps = append(steps, more(w, dir)...)
	}
	errs := make(chan error, len(steps))
	for _, st := range steps {
		go func() {
			began := time.Now()
			err := st.do()
			if err == nil {
				t.Logf("%s in %v", st.what, time.Since(began).Round(10*time.Millisecond))
			}
			errs <- err
		}()
	}
	// Every step ends before a failure is reported: a build still
	// writing into the temporary folder would fail its removal too.
	var failed []error
	for range steps {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if err := errors.Join(failed...); err != nil {
		t.Fatal(err)
	}
	sys32 := filepath.Join(w.prefix, "drive_c", "windows", "system32")
	if err := copyFile(dll, filepath.Join(sys32, "bcryptprimitives.dll")); err != nil {
		t.Fatalf("installing the shim (workaround 1): %v", err)
	}
	return w
}

// cliTestBinaries builds the Windows test binaries that
// TestWindowsCLIUnderWine runs under Wine.
func cliTestBinaries(w *wine, dir string) []wineStep {
	w.tests = filepath.Join(dir, "platform.test.exe")
	w.cli = filepath.Join(dir, "cli.test.exe")
	w.names = filepath.Join(dir, "receive.test.exe")
	w.place = filepath.Join(dir, "place.test.exe")
	return []wineStep{{"built the test binaries of core/platform, core/receive, core/place and cli/ferry for windows/amd64", func() error {
		if err := w.build(dir, "cli/ferry", "main", false, "test", "-c", "-o", w.cli, "./cli/ferry"); err != nil {
			return err
		}
		if err := w.build(dir, "core/receive", "receive", false, "test", "-c", "-o", w.names, "./core/receive"); err != nil {
			return err
		}
		if err := w.build(dir, "core/place", "place", false, "test", "-c", "-o", w.place, "./core/place"); err != nil {
			return err
		}
		return w.build(dir, "core/platform", "platform", false, "test", "-c", "-o", w.tests, "./core/platform")
	}}}
}

// build cross-builds pkg for windows/amd64 with the release build's
// flags, plus the overlay file of workaround 2 in pkgDir. Pure Go and
// -trimpath, the packages are the ones make lint vetted and make dist
// builds, shared in the build cache; with gui, cgo with mingw-w64 and
// -H windowsgui, as make ferry-gui-windows builds the desktop app, so the
// cgo packages it compiled (Fyne, GLFW: minutes cold) come from the cache
// and only the overlaid main package is compiled again.
func (w *wine) build(dir, pkgDir, pkgName string, gui bool, args ...string) error {
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	// Named by folder and go command: builds run side by side, and
	// two of them may not share a file.
	base := strings.ReplaceAll(pkgDir, "/", "_") + "_" + args[0]
	extra := filepath.Join(dir, base+"_wine.go")
	if err := os.WriteFile(extra, fmt.Appendf(nil, deleteatFallback, pkgName), 0o644); err != nil {
		return err
	}
	name := "zz_wine_windows.go"
	if args[0] == "test" {
		name = "zz_wine_windows_test.go"
	}
	overlay := filepath.Join(dir, base+"_overlay.json")
	ov := fmt.Sprintf(`{"Replace":{%q:%q}}`, filepath.Join(root, pkgDir, name), extra)
	if err := os.WriteFile(overlay, []byte(ov), 0o644); err != nil {
		return err
	}
	ldflags, env := "-ldflags=-checklinkname=0", []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"}
	if gui {
		ldflags = "-ldflags=-checklinkname=0 -s -w -H windowsgui"
		env = []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC=x86_64-w64-mingw32-gcc"}
	}
	full := append([]string{args[0], "-trimpath", "-overlay", overlay, ldflags}, args[1:]...)
	cmd := exec.Command("go", full...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", full, err, out)
	}
	return nil
}

// raw is a command of Wine's own (wineserver, wine64 wineboot) in this
// prefix, with umask 077 (workaround 3).
func (w *wine) raw(name string, args ...string) *exec.Cmd {
	full := append(append([]string{}, w.env...), "sh", "-c", `umask 077 && exec "$0" "$@"`, name)
	return exec.Command("env", append(full, args...)...)
}

// run runs one of Wine's own commands to its end. Its output goes to a
// file, not a pipe: wineserver and the services wineboot starts live on
// in the background with the same standard streams, and a pipe would
// never reach its end.
func (w *wine) run(what, name string, args ...string) error {
	log, err := os.CreateTemp(filepath.Dir(w.prefix), "wine-*.log")
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := w.raw(name, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		out, _ := os.ReadFile(log.Name())
		return fmt.Errorf("%s: %v\n%s", what, err, out)
	}
	return nil
}

// ferry is ferry.exe with args, run by wine64 in this prefix. Its process
// is the Windows process itself (env, sh and wine64 exec into it), so a
// signal to it reaches ferry.exe.
func (w *wine) ferry(args ...string) *exec.Cmd {
	return w.raw(w.wine64, append([]string{w.exe}, args...)...)
}

// winPath is p as ferry.exe sees it: Wine maps the Unix root to Z:.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// wineTree is a tree with what Windows makes hard: empty files and
// folders, Unicode names (accents, CJK, an emoji), and a path longer than
// Windows' 260-character MAX_PATH once it is under a destination.
func wineTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "tree ü")
	long := strings.Repeat("long folder name ", 4)
	files := map[string]string{
		"a.txt":                   "alpha\n",
		"empty file":              "",
		"sub/ünïcødé – 日本語 🚢.txt": strings.Repeat("u", 70000),
		"sub/deeper/still/x.bin":  strings.Repeat("\x00\x01", 300000),
		long + "1/" + long + "2/" + long + "3/" + long + "4/end.txt": "past MAX_PATH\n",
	}
	files["empty folder/nested empty/"] = ""
	testkit.WriteTree(t, root, 0o644, files)
	return root
}

// linux is the Linux ferry with args, as the device whose home is home.
func linux(t *testing.T, home string, args ...string) *exec.Cmd {
	return asDevice(exec.Command, home, nil, append([]string{proc.Ferry(t)}, args...)...)
}

// timed runs f and logs how long it took, for the report.
func timed(t *testing.T, what string, f func()) {
	t.Helper()
	began := time.Now()
	f()
	t.Logf("%s: %v", what, time.Since(began).Round(10*time.Millisecond))
}

func TestWindowsCLIUnderWine(t *testing.T) {
	began := time.Now()
	w := newWine(t, "", cliTestBinaries)
	linuxHome := t.TempDir()
	listen := func() string { return "127.0.0.1:" + freePort(t) }

	t.Run("version", func(t *testing.T) {
		out, stderr, code := proc.Run(t, w.ferry("version"))
		if code != 0 || !strings.Contains(out, "windows/amd64") {
			t.Fatalf("ferry.exe version exited %d: %s%s", code, out, stderr)
		}
		t.Logf("ferry.exe version: exit %d, %q", code, strings.TrimSpace(out))
	})

	t.Run("windows sends a tree and a snippet", func(t *testing.T) {
		src := wineTree(t)
		dest := t.TempDir()
		addr := listen()
		recv := proc.Start(t, linux(t, linuxHome, "receive", "--dir", dest, "--code", "135790", "--yes", "--json",
			"--no-mdns", "--listen", addr), true)
		recv.Until("listening", 30*time.Second)
		var code int
		send := proc.Start(t, w.ferry("send", "--to", addr, "--code", "135790", "--json", "--text", "snippet from windows ✓", winPath(src)), true)
		timed(t, "windows send", func() { code = send.Exit(2 * time.Minute) })
		o := nextOutcome(t, recv, time.Minute)
		if code != 0 || !o.ok() {
			t.Fatalf("ferry.exe send exited %d (want 0), receiver %v; stderr:\n%s", code, o.ev, send.StderrText())
		}
		if txt := o.first("text"); txt == nil || txt["text"] != "snippet from windows ✓" {
			t.Errorf("receiver's text event %v, want the snippet", txt)
		}
		if c := recv.Exit(30 * time.Second); c != 0 {
			t.Errorf("linux receive exited %d", c)
		}
		sameTree(t, src, filepath.Join(dest, filepath.Base(src)))
		if strings.Contains(send.StderrText(), "warning") {
			t.Errorf("ferry.exe warned: %s", send.StderrText())
		}
		t.Logf("exit codes: ferry.exe send %d, linux receive 0", code)
	})

	t.Run("windows receives a tree and a snippet", func(t *testing.T) {
		src := wineTree(t)
		dest := t.TempDir()
		addr := listen()
		recv := proc.Start(t, w.ferry("receive", "--dir", winPath(dest), "--code", "246802", "--yes", "--json",
			"--no-mdns", "--listen", addr), true)
		timed(t, "windows receiver up", func() { recv.Until("listening", time.Minute) })
		send := proc.Start(t, linux(t, linuxHome, "send", "--to", addr, "--code", "246802", "--json", "--text", "snippet to windows ✓", src), true)
		o := nextOutcome(t, recv, 2*time.Minute)
		if !o.ok() {
			t.Fatalf("ferry.exe receive: %v; stderr:\n%s", o.ev, recv.StderrText())
		}
		if txt := o.first("text"); txt == nil || txt["text"] != "snippet to windows ✓" {
			t.Errorf("ferry.exe's text event %v, want the snippet", txt)
		}
		rc, sc := recv.Exit(30*time.Second), send.Exit(30*time.Second)
		if rc != 0 || sc != 0 {
			t.Fatalf("ferry.exe receive exited %d, linux send %d; want 0 and 0", rc, sc)
		}
		sameTree(t, src, filepath.Join(dest, filepath.Base(src)))
		if p := partials(t, dest); len(p) != 0 {
			t.Errorf("partial files left: %v", p)
		}
		// The trust store was written after the code authenticated the
		// sender (its lock, its private file, its durable replace): a
		// failure there is a warning on stderr, and the recent list
		// shows the sender.
		if strings.Contains(recv.StderrText(), "warning") {
			t.Errorf("ferry.exe warned: %s", recv.StderrText())
		}
		out, stderr, code := proc.Run(t, w.ferry("trust", "list", "--recent", "--json"))
		if code != 0 || !strings.Contains(out, "fingerprint") {
			t.Errorf("ferry.exe trust list --recent exited %d: %s%s", code, out, stderr)
		}
		t.Logf("exit codes: ferry.exe receive %d, linux send %d; trust list %d", rc, sc, code)
	})

	t.Run("key and trust file in local app data", func(t *testing.T) {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		appData := filepath.Join(w.prefix, "drive_c", "users", u.Username, "AppData")
		for _, f := range []string{"static.key", "trusted.json"} {
			if _, err := os.Stat(filepath.Join(appData, "Local", "ferry", f)); err != nil {
				t.Errorf("%s not in %%LOCALAPPDATA%%\\ferry: %v", f, err)
			}
		}
		if _, err := os.Stat(filepath.Join(appData, "Roaming", "ferry")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ferry wrote into the roaming %%APPDATA%%: %v", err)
		}
	})

	t.Run("wrong code", func(t *testing.T) {
		// Windows sends with a wrong code to Linux...
		addr := listen()
		recv := proc.Start(t, linux(t, linuxHome, "receive", "--dir", t.TempDir(), "--code", "111111", "--yes", "--json",
			"--no-mdns", "--listen", addr), true)
		recv.Until("listening", 30*time.Second)
		src := filepath.Join(t.TempDir(), "f.txt")
		os.WriteFile(src, []byte("x"), 0o644)
		out, stderr, code := proc.Run(t, w.ferry("send", "--to", addr, "--code", "222222", "--json", winPath(src)))
		runFailsAs(t, "ferry.exe send with a wrong code", out, code, stderr, "wrong_code")
		if !strings.Contains(stderr, "wrong code") {
			t.Errorf("ferry.exe send with a wrong code: %s", stderr)
		}
		recv.Signal(syscall.SIGTERM)
		recv.Exit(30 * time.Second)
		// ...and Linux sends with a wrong code to Windows.
		addr = listen()
		wrecv := proc.Start(t, w.ferry("receive", "--dir", winPath(t.TempDir()), "--code", "333333", "--yes", "--json",
			"--no-mdns", "--listen", addr), true)
		wrecv.Until("listening", time.Minute)
		out2, stderr2, code2 := proc.Run(t, linux(t, linuxHome, "send", "--to", addr, "--code", "444444", "--json", src))
		runFailsAs(t, "linux send to ferry.exe with a wrong code", out2, code2, stderr2, "wrong_code")
		if !strings.Contains(stderr2, "wrong code") {
			t.Errorf("linux send to ferry.exe with a wrong code: %s", stderr2)
		}
		t.Logf("exit codes: ferry.exe send %d, linux send to ferry.exe %d", code, code2)
	})

	t.Run("decline", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "f.txt")
		os.WriteFile(src, []byte("declined"), 0o644)
		// Without --yes and without a terminal the receiver declines.
		addr := listen()
		recv := proc.Start(t, linux(t, linuxHome, "receive", "--dir", t.TempDir(), "--code", "555555", "--json",
			"--no-mdns", "--listen", addr), true)
		recv.Until("listening", 30*time.Second)
		out, stderr, code := proc.Run(t, w.ferry("send", "--to", addr, "--code", "555555", "--json", winPath(src)))
		runFailsAs(t, "ferry.exe send to a declining receiver", out, code, stderr, "declined")
		rc := recv.Exit(30 * time.Second)

		addr = listen()
		dest := t.TempDir()
		wrecv := proc.Start(t, w.ferry("receive", "--dir", winPath(dest), "--code", "666666", "--json",
			"--no-mdns", "--listen", addr), true)
		wrecv.Until("listening", time.Minute)
		out2, stderr2, code2 := proc.Run(t, linux(t, linuxHome, "send", "--to", addr, "--code", "666666", "--json", src))
		runFailsAs(t, "linux send to a declining ferry.exe", out2, code2, stderr2, "declined")
		wrc := wrecv.Exit(time.Minute)
		if names := finalNames(t, dest); len(names) != 0 {
			t.Errorf("a declined offer left %v", names)
		}
		t.Logf("exit codes: ferry.exe send %d (linux receive %d), linux send %d (ferry.exe receive %d)", code, rc, code2, wrc)
	})

	t.Run("resume after the windows receiver is killed", func(t *testing.T) {
		resumeUnderWine(t, w, linuxHome, "windows")
	})
	t.Run("resume after the linux receiver is killed", func(t *testing.T) {
		resumeUnderWine(t, w, linuxHome, "linux")
	})

	t.Run("busy port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out, stderr, code := proc.Run(t, w.ferry("receive", "--dir", winPath(t.TempDir()), "--json", "--no-mdns", "--listen", l.Addr().String()))
		runFailsAs(t, "ferry.exe receive on a busy port", out, code, stderr, "address_in_use")
		t.Logf("exit code: %d (%s)", code, strings.TrimSpace(stderr))
	})

	t.Run("interrupt", func(t *testing.T) {
		// Wine turns SIGINT into the console's CTRL_C_EVENT, which Go
		// delivers as os.Interrupt: a waiting receiver ends as cancelled.
		wrecv := proc.Start(t, w.ferry("receive", "--dir", winPath(t.TempDir()), "--json", "--no-mdns", "--listen", listen()), true)
		wrecv.Until("listening", time.Minute)
		wrecv.Signal(syscall.SIGINT)
		last, code := lastError(t, wrecv, time.Minute, "ferry.exe receive after SIGINT")
		if code != 0 { // cancelled, or 0 (as this test always allowed)
			checkFailure(t, "ferry.exe receive after SIGINT", last, code, []string{"cancelled"}, wrecv.StderrText())
		}
		t.Logf("exit code after SIGINT: %d", code)
	})

	t.Run("no space", func(t *testing.T) {
		// An offer larger than the destination's free space (a 4 MiB
		// tmpfs, seen through GetDiskFreeSpaceEx) is refused before any
		// byte moves.
		small := smallFS(t)
		src := randomFile(t, t.TempDir(), "eight.bin", 8<<20, 3)
		addr := listen()
		wrecv := proc.Start(t, w.ferry("receive", "--dir", winPath(small), "--code", "888888", "--yes", "--json",
			"--no-mdns", "--listen", addr), true)
		wrecv.Until("listening", time.Minute)
		sout, _, sc := proc.Run(t, linux(t, linuxHome, "send", "--to", addr, "--code", "888888", "--json", src))
		o := nextOutcome(t, wrecv, time.Minute)
		exitsAs(t, wrecv, o, "ferry.exe receive onto a full disk", "no_space")
		rc := o.ev["exit_code"]
		runFailsAs(t, "linux send to ferry.exe onto a full disk", sout, sc, "", "no_space")
		if names := finalNames(t, small); len(names) != 0 {
			t.Errorf("a refused offer left %v", names)
		}
		t.Logf("exit codes: ferry.exe receive %v (%s: %s), linux send %d", rc, o.kind(), o.message(), sc)
	})

	t.Run("core/platform under windows", func(t *testing.T) {
		var out []byte
		var err error
		// TestNoSpaceOnFullDisk needs a small file system: root mounts one.
		small := "FERRY_SMALL_FS="
		if os.Geteuid() == 0 {
			small += winPath(smallFS(t))
		}
		timed(t, "platform.test.exe", func() {
			var stdout string
			stdout, _, code := proc.Run(t, w.raw("env", small, w.wine64, w.tests, "-test.v", "-test.count=1"))
			out = []byte(stdout)
			if code != 0 {
				err = fmt.Errorf("exit code %d", code)
			}
		})
		if err != nil {
			t.Fatalf("core/platform's tests under Wine: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "--- ") {
				t.Log(l)
			}
		}
	})
	t.Run("name rules under windows", func(t *testing.T) {
		// The name tests' table has a Windows column (core/place's
		// paths_windows.go refuses more); it runs here as a Windows
		// binary. From each package's folder, so that FuzzNames finds
		// its corpus.
		for _, pkg := range []struct {
			name, bin string
			tests     []string
		}{
			{"place", w.place, []string{"TestCheckPath", "FuzzNames"}},
			{"transfer", w.names, []string{"TestDuplicatesUnderFolding"}},
		} {
			cmd := w.raw(w.wine64, pkg.bin, "-test.v", "-test.count=1", "-test.run", "^("+strings.Join(pkg.tests, "|")+")$")
			cmd.Dir = filepath.Join("..", "core", pkg.name)
			out, stderr, code := proc.Run(t, cmd)
			if code != 0 {
				t.Fatalf("core/%s's name tests under Wine exited %d:\n%s%s", pkg.name, code, out, stderr)
			}
			for _, name := range pkg.tests {
				if !strings.Contains(out, "--- PASS: "+name+" ") {
					t.Errorf("%s did not pass on windows:\n%s", name, out)
				}
			}
		}
	})
	t.Run("console detection under windows", func(t *testing.T) {
		// cli/ferry's Windows-only test: mintty's pty pipes count as a
		// terminal, other pipes do not.
		out, stderr, code := proc.Run(t, w.raw(w.wine64, w.cli, "-test.v", "-test.count=1", "-test.run", "^TestMinttyPipe$"))
		if code != 0 || !strings.Contains(out, "--- PASS: TestMinttyPipe") {
			t.Fatalf("cli/ferry's TestMinttyPipe under Wine: exit %d\n%s%s", code, out, stderr)
		}
	})
	t.Logf("the whole Wine run: %v", time.Since(began).Round(10*time.Millisecond))
}

// resumeUnderWine kills the receiver (victim: "windows" is ferry.exe,
// "linux" the Linux ferry) in the middle of a large file, starts it again,
// and sends again: the second send resumes from what the first wrote,
// and the file that takes its name is the source's.
func resumeUnderWine(t *testing.T, w *wine, linuxHome, victim string) {
	const size = 64 << 20
	src := randomFile(t, t.TempDir(), "big.bin", size, 7)
	want := blake3File(t, src)
	dest := t.TempDir()
	addr := "127.0.0.1:" + freePort(t)
	receiver := func() *proc.Proc {
		if victim == "windows" {
			return proc.Start(t, w.ferry("receive", "--dir", winPath(dest), "--code", "777777", "--yes", "--json",
				"--no-mdns", "--listen", addr), true)
		}
		return proc.Start(t, linux(t, linuxHome, "receive", "--dir", dest, "--code", "777777", "--yes", "--json",
			"--no-mdns", "--listen", addr), true)
	}
	sender := func() *proc.Proc {
		if victim == "windows" {
			return proc.Start(t, linux(t, linuxHome, "send", "--to", addr, "--code", "777777", "--json", src), true)
		}
		return proc.Start(t, w.ferry("send", "--to", addr, "--code", "777777", "--json", winPath(src)), true)
	}

	watch := watchPartials(t, dest)
	recv := receiver()
	recv.Until("listening", time.Minute)
	send := sender()
	at, ok := watch.waitSize(size/32, 2*time.Minute)
	if !ok {
		t.Fatalf("the transfer completed before the kill at %d bytes", size/32)
	}
	recv.Signal(syscall.SIGKILL)
	recv.Exit(30 * time.Second)
	o := nextOutcome(t, send, time.Minute)
	exitsAs(t, send, o, "the sender after the kill", "connection_lost")

	recv = receiver()
	recv.Until("listening", time.Minute)
	send = sender()
	from := size - evInt(t, send.Until("accepted", time.Minute), "total_bytes")
	so, ro := nextOutcome(t, send, 2*time.Minute), nextOutcome(t, recv, time.Minute)
	sc2, rc2 := send.Exit(30*time.Second), recv.Exit(30*time.Second)
	if !so.ok() || !ro.ok() || sc2 != 0 || rc2 != 0 {
		t.Fatalf("second send: sender exit %d %v, receiver exit %d %v", sc2, so.ev, rc2, ro.ev)
	}
	if from < at || from == 0 {
		t.Errorf("the second send resumed from %d, but %d bytes were written before the kill", from, at)
	}
	if got := evInt(t, so.ev, "resumed_bytes"); got != from {
		t.Errorf("resumed_bytes %d, accepted said %d", got, from)
	}
	if h := blake3File(t, filepath.Join(dest, "big.bin")); h != want {
		t.Fatalf("BLAKE3 of the received file %s, want %s", h, want)
	}
	if p := partials(t, dest); len(p) != 0 {
		t.Errorf("partial files left after the resumed transfer: %v", p)
	}
	t.Logf("killed the %s receiver at %d of %d bytes; the sender exited %v (%s); the second send resumed from %d and exited %d, the receiver %d",
		victim, at, size, o.ev["exit_code"], o.kind(), from, sc2, rc2)
}

// freePort is a TCP port on loopback that nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// smallFS mounts a 4 MiB tmpfs for the test, as root, or skips.
func smallFS(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Fatalf("mounting a tmpfs as root: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}
