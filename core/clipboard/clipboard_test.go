package clipboard

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/xdisplay"
)

// x11 starts a private X server for the test and points the package at
// it. The clipboard there is real: xclip serves it, as on a desktop.
func x11(t *testing.T) {
	t.Helper()
	testkit.NeedTool(t, "xclip", "the X11 clipboard")
	d := xdisplay.Start(t, false)
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("DISPLAY", d)
}

// A text written is read back the same, by this package and by xclip
// itself: spaces, newlines and non-ASCII survive, and no newline is added.
func TestTextRoundTripX11(t *testing.T) {
	x11(t)
	ctx := context.Background()
	if _, err := ReadText(ctx); !errors.Is(err, ErrEmpty) {
		t.Fatalf("fresh clipboard: got %v, want ErrEmpty", err)
	}
	want := "Grüße, ferry\n  line two\tand a tab"
	if err := WriteText(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadText(ctx)
	if err != nil || got != want {
		t.Fatalf("ReadText = %q, %v; want %q", got, err, want)
	}
	out, err := exec.Command("xclip", "-selection", "clipboard", "-o").Output()
	if err != nil || string(out) != want {
		t.Fatalf("xclip -o = %q, %v; want %q", out, err, want)
	}
}

// WriteText returns once the text can be read back, even when the program
// that serves the clipboard takes it over late. xclip asks the X server
// for the clipboard and forks, and the request leaves with the child's
// first flush; a child scheduled late left ReadText, right after
// WriteText, an empty clipboard once in CI. Here a wrapper around the
// real xclip makes every write late by 300 ms, which without the wait
// fails every run.
func TestWriteWaitsForOwnerX11(t *testing.T) {
	x11(t)
	real, err := exec.LookPath("xclip")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := "#!/bin/sh\n" +
		"case \" $* \" in\n" +
		"*\" -in \"*) f=$(mktemp); cat > \"$f\"\n" +
		"  (sleep 0.3; " + real + " \"$@\" < \"$f\"; rm -f \"$f\") >/dev/null 2>&1 &\n" +
		"  exit 0 ;;\n" +
		"esac\n" +
		"exec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := context.Background()
	want := "taken over late"
	if err := WriteText(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadText(ctx); err != nil || got != want {
		t.Fatalf("ReadText right after WriteText = %q, %v; want %q", got, err, want)
	}
}

// An image that another program put on the clipboard as image/png is read
// as those PNG bytes; with text on the clipboard ReadImage says there is
// no image.
func TestImageX11(t *testing.T) {
	x11(t)
	ctx := context.Background()
	if err := WriteText(ctx, "just text"); err != nil {
		t.Fatal(err)
	}
	holds(t, "UTF8_STRING", func(out string) bool { return out == "just text" })
	if _, err := ReadImage(ctx); !errors.Is(err, ErrNoImage) {
		t.Fatalf("text on the clipboard: ReadImage error %v, want ErrNoImage", err)
	}

	img := image.NewRGBA(image.Rect(0, 0, 7, 5))
	img.Set(3, 2, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// xclip forks a child that serves the clipboard; its output goes to
	// no pipe, so Run returns once the parent exits.
	if err := exec.Command("xclip", "-selection", "clipboard", "-t", "image/png", "-i", file).Run(); err != nil {
		t.Fatal(err)
	}
	holds(t, "TARGETS", func(out string) bool { return strings.Contains(out, "image/png") })
	got, err := ReadImage(ctx)
	if err != nil || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("ReadImage = %d bytes, %v; want the %d bytes put there", len(got), err, b.Len())
	}
	// xclip answers a request for text with the image: ReadText must
	// look at the types offered and say there is no text.
	if s, err := ReadText(ctx); !errors.Is(err, ErrEmpty) {
		t.Errorf("image on the clipboard: ReadText = %d bytes, %v; want ErrEmpty", len(s), err)
	}
}

// Without a desktop session there is nothing to reach: the error says
// why, and no program is run.
func TestNoSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("DISPLAY and WAYLAND_DISPLAY choose the tool on Linux only")
	}
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("DISPLAY", "")
	_, err := ReadText(context.Background())
	if !errors.Is(err, ErrNoTool) || !strings.Contains(err.Error(), "DISPLAY") {
		t.Fatalf("got %v, want ErrNoTool naming DISPLAY", err)
	}
}

// A session whose tools are missing names what to install.
func TestMissingToolNamesPackage(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("macOS and Windows have their clipboard programs built in")
	}
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	t.Setenv("DISPLAY", ":99")
	t.Setenv("PATH", t.TempDir())
	err := WriteText(context.Background(), "x")
	if !errors.Is(err, ErrNoTool) || !strings.Contains(err.Error(), "wl-clipboard") || !strings.Contains(err.Error(), "xclip") {
		t.Fatalf("got %v, want ErrNoTool naming wl-clipboard and xclip", err)
	}
}

// holds waits until the X clipboard, read as target, is what ok wants:
// xclip returns once it has forked, and its child takes the selection a
// moment later (a loaded CI machine once read what was there before).
func holds(t *testing.T, target string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := exec.Command("xclip", "-selection", "clipboard", "-t", target, "-o").Output()
		if ok(string(out)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clipboard, read as %s, is %q after 10 s", target, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
