package xvfb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit/xdisplay"
)

// views are the demo views captured, with the environment that selects
// each, and the file they are kept in.
var views = []struct {
	file string
	env  []string
}{
	// The real app at start: engine and receiver running, no demo data.
	{"empty.png", []string{"FERRY_IFACE=lo"}},
	{"send.png", []string{"FERRY_GUI_DEMO=send"}},
	{"progress.png", []string{"FERRY_GUI_DEMO=progress"}},
	{"done.png", []string{"FERRY_GUI_DEMO=done"}},
	{"failed.png", []string{"FERRY_GUI_DEMO=failed"}},
	{"receive.png", []string{"FERRY_GUI_DEMO=receive"}},
	{"offer.png", []string{"FERRY_GUI_DEMO=offer"}},
	// The receiver after the guess budget ran out, offering a new code.
	{"codes-stopped.png", []string{"FERRY_GUI_DEMO=codes-stopped"}},
	{"settings.png", []string{"FERRY_GUI_DEMO=settings"}},
	{"send-light.png", []string{"FERRY_GUI_DEMO=send", "FYNE_THEME=light"}},
	// Trusted devices: Settings listing two, a device list with a
	// trusted device and one whose key changed, and a result offering to
	// trust the receiver.
	{"trusted.png", []string{"FERRY_GUI_DEMO=trusted"}},
	{"devices-trusted.png", []string{"FERRY_GUI_DEMO=devices-trusted"}},
	{"done-trust.png", []string{"FERRY_GUI_DEMO=done-trust"}},
	// Sending to several devices: three ticked, a code field each; then
	// a row per device, one of which declined.
	{"send-many.png", []string{"FERRY_GUI_DEMO=send-many"}},
	{"progress-many.png", []string{"FERRY_GUI_DEMO=progress-many"}},
	// Receiving from three devices at once: a card each, asking,
	// receiving and verified, under the code.
	{"receive-many.png", []string{"FERRY_GUI_DEMO=receive-many"}},
	{"receive-many-light.png", []string{"FERRY_GUI_DEMO=receive-many", "FYNE_THEME=light"}},
	// Send to a phone: the QR code and link, waiting for a page.
	{"send-phone.png", []string{"FERRY_GUI_DEMO=send-phone"}},
	// The History tab: sent and received, verified, declined, failed.
	{"history.png", []string{"FERRY_GUI_DEMO=history"}},
}

// The window size ferry-gui asks for; no window manager runs, so it gets it.
const wantW, wantH = 960, 680

// TestScreenshots starts bin/ferry-gui under Xvfb once per demo view and
// checks that the window rendered: the expected size, and many distinct
// colours (a blank or failed GL window has one or two). It fails when the
// binary or the X tools are missing: make e2e builds the one and
// tests/install-deps.sh installs the others.
func TestScreenshots(t *testing.T) {
	root := repoRoot(t)
	bin := filepath.Join(root, "bin", "ferry-gui")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: build it with make ferry-gui (make e2e does)", bin)
	}
	for _, tool := range []string{"Xvfb", "import", "convert", "compare", "identify", "xwininfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: tests/install-deps.sh installs it", tool)
		}
	}
	out := filepath.Join(root, "gui", "screenshots")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		t.Run(strings.TrimSuffix(v.file, ".png"), func(t *testing.T) {
			// A server per view: X keeps a closed window's pixels on the
			// root window, which would leak into the next capture.
			display := startXvfb(t)
			shot := capture(t, bin, display, v.env)
			keep(t, shot, filepath.Join(out, v.file))
		})
	}
}

// keep stores a capture as dst unless dst already holds the same pixels,
// so that a test run leaves the committed screenshots alone when nothing
// on screen changed.
func keep(t *testing.T, shot, dst string) {
	t.Helper()
	if _, err := os.Stat(dst); err == nil && differingPixels(shot, dst) == 0 {
		return
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// differingPixels counts the pixels in which two images differ (-1 when
// they can't be compared, e.g. a different size: compare itself then
// counts only the part they share, and may say 0).
func differingPixels(a, b string) float64 {
	size := func(f string) string {
		out, err := exec.Command("identify", "-format", "%wx%h", f).Output()
		if err != nil {
			return "?" + f
		}
		return string(out)
	}
	if size(a) != size(b) {
		return -1
	}
	out, _ := exec.Command("compare", "-metric", "AE", a, b, "null:").CombinedOutput()
	n, err := strconv.ParseFloat(strings.Fields(string(out) + " x")[0], 64)
	if err != nil {
		return -1
	}
	return n
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// startXvfb starts a virtual X server on a free display and returns it.
// The pointer starts at the centre of the screen: the screen is big
// enough that it is off the window, so no hover highlight makes a
// capture depend on timing.
func startXvfb(t *testing.T) string {
	t.Helper()
	return xdisplay.StartScreen(t, true, "2200x1400x24")
}

// capture runs ferry-gui with env on display until its window shows
// rendered content, and returns the path of a PNG of the window.
func capture(t *testing.T, bin, display string, env []string) string {
	t.Helper()
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"FERRY_CONFIG_DIR="+filepath.Join(tmp, "ferry"),
		"XDG_RUNTIME_DIR="+tmp, // the app's single-instance socket
		"FERRY_NO_DISCOVERY=1", // never multicast from a test
		"FERRY_LISTEN=127.0.0.1:0",
	)
	cmd.Env = append(cmd.Env, env...)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cancel()
		<-exited
	}()

	raw := filepath.Join(tmp, "root.png")
	shot := filepath.Join(tmp, "window.png")
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("ferry-gui exited early (%v):\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window never rendered (%s):\n%s", last, logs.String())
		}
		geo, err := windowGeometry(display)
		if err != nil {
			last = err.Error()
			time.Sleep(100 * time.Millisecond) // an external process: nothing to wait on but its window
			continue
		}
		if err := run(display, "import", "-window", "root", raw); err != nil {
			t.Fatal(err)
		}
		crop := fmt.Sprintf("%dx%d+%d+%d", geo[2], geo[3], geo[0], geo[1])
		if err := run(display, "convert", raw, "-crop", crop, "+repage", "-strip", shot); err != nil {
			t.Fatal(err)
		}
		colours, err := countColours(display, shot)
		if err != nil {
			t.Fatal(err)
		}
		// Fyne draws its first frames as plain background before the
		// widgets; a real view has text antialiasing, icons and tints.
		if colours >= 64 && geo[2] == wantW && geo[3] == wantH {
			t.Logf("%s: %dx%d window, %d colours", strings.Join(env, " "), geo[2], geo[3], colours)
			// One more frame: the view may still be settling (a folder
			// being measured). Capture again after it renders twice
			// the same.
			if settled(t, display, raw, shot, crop) {
				return shot
			}
		}
		last = fmt.Sprintf("window %v, %d colours", geo, colours)
		time.Sleep(100 * time.Millisecond)
	}
}

// settled captures once more and reports whether the window looks the
// same as shot.
func settled(t *testing.T, display, raw, shot, crop string) bool {
	again := shot + ".again.png"
	if err := run(display, "import", "-window", "root", raw); err != nil {
		t.Fatal(err)
	}
	if err := run(display, "convert", raw, "-crop", crop, "+repage", "-strip", again); err != nil {
		t.Fatal(err)
	}
	n := differingPixels(shot, again)
	os.Rename(again, shot)
	return n == 0
}

var geoRE = regexp.MustCompile(`(?s)Absolute upper-left X:\s+(\d+).*Absolute upper-left Y:\s+(\d+).*Width:\s+(\d+).*Height:\s+(\d+)`)

// windowGeometry finds the Ferry window: x, y, width, height.
func windowGeometry(display string) ([4]int, error) {
	cmd := exec.Command("xwininfo", "-name", "Ferry")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return [4]int{}, fmt.Errorf("no window yet: %s", strings.TrimSpace(string(out)))
	}
	m := geoRE.FindStringSubmatch(string(out))
	if m == nil {
		return [4]int{}, fmt.Errorf("unreadable xwininfo output: %s", out)
	}
	var g [4]int
	for i := range g {
		g[i], _ = strconv.Atoi(m[i+1])
	}
	return g, nil
}

func countColours(display, png string) (int, error) {
	cmd := exec.Command("convert", png, "-format", "%k", "info:")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("counting colours: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

func run(display string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return nil
}
