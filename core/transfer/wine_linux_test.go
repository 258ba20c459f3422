//go:build linux

package transfer

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPathRulesOnWindows runs the name tests' Windows column for real:
// this package's tests, built for windows/amd64, run under Wine, where
// platformName is paths_windows.go's. Wine is a stand-in for Windows
// here, and only for what checkPath decides, which calls no Windows API.
//
// Debian's Wine 8.0 lacks ProcessPrng in bcryptprimitives.dll, which
// Go's Windows runtime calls at start; the test builds a one-function
// DLL with mingw-w64 that serves it from RtlGenRandom and puts it in the
// test's own Wine prefix. That is Wine's gap, not Windows'.
func TestPathRulesOnWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("short: building the package for windows and starting Wine takes a minute")
	}
	wine := "/usr/lib/wine/wine64"
	if p, err := exec.LookPath("wine64"); err == nil {
		wine = p
	}
	for _, tool := range []string{wine, "x86_64-w64-mingw32-gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("running the windows tests needs wine64 and mingw-w64 (tests/install-deps.sh installs them): %v", err)
		}
	}
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "prefix")
	env := append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
	runIn := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	exe := filepath.Join(tmp, "transfer.test.exe")
	goEnv := append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	runIn(".", goEnv, filepath.Join(runtime.GOROOT(), "bin", "go"), "test", "-c", "-o", exe, ".")

	shim := filepath.Join(tmp, "shim.c")
	if err := os.WriteFile(shim, []byte(processPrngShim), 0o644); err != nil {
		t.Fatal(err)
	}
	dll := filepath.Join(tmp, "bcryptprimitives.dll")
	runIn(tmp, nil, "x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", dll, shim, "-ladvapi32")

	runIn(tmp, env, wine, "wineboot", "--init")
	sys32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	b, err := os.ReadFile(dll)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys32, "bcryptprimitives.dll"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Run from the package folder, so that FuzzNames finds its corpus.
	out := runIn(".", env, wine, exe, "-test.run", "^(TestCheckPath|TestDuplicatesUnderFolding|FuzzNames)$", "-test.v")
	for _, name := range []string{"TestCheckPath", "TestDuplicatesUnderFolding", "FuzzNames"} {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass on windows:\n%s", name, out)
		}
	}
	// Wait for this prefix's wineserver to go (it leaves on its own once
	// idle), so that nothing outlives the test.
	runIn(tmp, env, filepath.Join(filepath.Dir(wine), "wineserver"), "-w")
}

// processPrngShim is the one function Go's Windows runtime needs from
// bcryptprimitives.dll, over advapi32's RtlGenRandom.
const processPrngShim = `#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
`
