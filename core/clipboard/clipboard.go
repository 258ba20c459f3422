// Package clipboard reads and writes the desktop clipboard for front ends
// that cannot use cgo (the ferry command) and for what Fyne's clipboard
// does not carry (images). It runs the platform's own clipboard programs
// rather than linking a windowing library:
//
//	Linux, Wayland  wl-paste / wl-copy      (package wl-clipboard)
//	Linux, X11      xclip, else xsel        (packages xclip, xsel)
//	macOS           pbpaste / pbcopy        (part of the system)
//	Windows         PowerShell Get-Clipboard / Set-Clipboard
//
// On Linux the session decides: WAYLAND_DISPLAY selects wl-clipboard,
// DISPLAY the X11 tools; with neither there is no clipboard to reach and
// the error says so. A missing program is ErrNoTool, whose message names
// the package to install.
//
// Texts are UTF-8, read and written without a trailing newline added or
// removed. Images are read as PNG, and only where the tool can ask for a
// type (wl-paste, xclip); xsel, pbpaste and Get-Clipboard read text only,
// and ReadImage says so with ErrNoImage's wrapper.
//
// Reads are bounded by maxRead: a clipboard is not a way to send a disk
// image, and a bigger one fails with a message rather than filling memory.
package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
)

// maxRead is the most a read takes from the clipboard: 64 MiB, more than
// any screenshot.
const maxRead = 64 << 20

// timeout bounds one clipboard program: an X11 clipboard owner that
// never answers would otherwise hang the command.
const timeout = 10 * time.Second

var (
	// ErrNoTool: no clipboard program for this session is installed, or
	// there is no session (no display) to reach.
	ErrNoTool = errkind.New(errkind.ClipboardTool, "no clipboard program available")
	// ErrEmpty: the clipboard holds nothing of the kind asked for.
	ErrEmpty = errkind.New(errkind.ClipboardEmpty, "the clipboard is empty")
	// ErrNoImage: the clipboard holds no image, or this platform's tool
	// cannot read one.
	ErrNoImage = errkind.New(errkind.ClipboardEmpty, "no image on the clipboard")
)

// tool is one way to reach the clipboard: the argument lists of the
// programs that read text, read an image, list the types held, and write
// text. A nil list means the tool cannot do that.
type tool struct {
	name      string
	pkg       string // what to install to get it
	readText  []string
	readPNG   []string
	listTypes []string
	writeText []string
}

// tools are the candidates for this system, best first, and the advice
// to give when none is installed.
func tools() ([]tool, string) {
	switch runtime.GOOS {
	case "darwin":
		return []tool{{name: "pbpaste", readText: []string{"pbpaste"}, writeText: []string{"pbcopy"}}},
			"pbpaste and pbcopy are part of macOS: check that /usr/bin is on PATH"
	case "windows":
		ps := []string{"powershell.exe", "-NoProfile", "-NonInteractive", "-Command"}
		return []tool{{
				name:     "powershell",
				readText: append(ps[:len(ps):len(ps)], "[Console]::OutputEncoding=[Text.Encoding]::UTF8; Get-Clipboard -Raw"),
				// Set-Clipboard reads the text from standard input.
				writeText: append(ps[:len(ps):len(ps)], "[Console]::InputEncoding=[Text.Encoding]::UTF8; Set-Clipboard -Value ([Console]::In.ReadToEnd())"),
			}},
			"PowerShell (powershell.exe) must be on PATH"
	}
	wl := tool{
		name: "wl-paste", pkg: "wl-clipboard",
		// "text" asks wl-paste for whichever text type is offered.
		readText:  []string{"wl-paste", "--no-newline", "--type", "text"},
		readPNG:   []string{"wl-paste", "--type", "image/png"},
		listTypes: []string{"wl-paste", "--list-types"},
		writeText: []string{"wl-copy", "--type", "text/plain;charset=utf-8"},
	}
	xclip := tool{
		name: "xclip", pkg: "xclip",
		readText:  []string{"xclip", "-selection", "clipboard", "-out", "-target", "UTF8_STRING"},
		readPNG:   []string{"xclip", "-selection", "clipboard", "-out", "-target", "image/png"},
		listTypes: []string{"xclip", "-selection", "clipboard", "-out", "-target", "TARGETS"},
		writeText: []string{"xclip", "-selection", "clipboard", "-in", "-target", "UTF8_STRING"},
	}
	xsel := tool{
		name: "xsel", pkg: "xsel",
		readText:  []string{"xsel", "--clipboard", "--output"},
		writeText: []string{"xsel", "--clipboard", "--input"},
	}
	wayland, x11 := os.Getenv("WAYLAND_DISPLAY") != "", os.Getenv("DISPLAY") != ""
	var ts []tool
	var want []string
	if wayland {
		ts, want = append(ts, wl), append(want, "wl-clipboard")
	}
	if x11 {
		// Under XWayland the X11 tools see the same clipboard.
		ts, want = append(ts, xclip, xsel), append(want, "xclip (or xsel)")
	}
	if len(ts) == 0 {
		return nil, "no desktop session here (neither WAYLAND_DISPLAY nor DISPLAY is set): the clipboard belongs to a desktop session"
	}
	return ts, "install " + strings.Join(want, " or ") + ", e.g. sudo apt install " + ts[0].pkg
}

// find is the first candidate whose programs are installed and that can
// do what has reports.
func find(has func(tool) bool) (tool, error) {
	ts, advice := tools()
	for _, t := range ts {
		if has(t) {
			if _, err := exec.LookPath(t.writeOrRead()); err == nil {
				return t, nil
			}
		}
	}
	return tool{}, fmt.Errorf("%w: %s", ErrNoTool, advice)
}

// writeOrRead is the program whose presence stands for the tool's.
func (t tool) writeOrRead() string {
	if t.readText != nil {
		return t.readText[0]
	}
	return t.writeText[0]
}

// ReadText returns the text on the clipboard (ErrEmpty when there is
// none).
func ReadText(ctx context.Context) (string, error) {
	t, err := find(func(t tool) bool { return t.readText != nil })
	if err != nil {
		return "", err
	}
	if t.listTypes != nil {
		// Ask what the clipboard holds first: some owners (xclip itself)
		// answer any type with what they hold, an image included.
		types, err := run(ctx, t.listTypes, nil)
		if err != nil || !hasText(types) {
			return "", ErrEmpty
		}
	}
	out, err := run(ctx, t.readText, nil)
	if err != nil {
		// wl-paste and xclip fail when the clipboard holds no text;
		// nothing on the clipboard is the usual reason.
		if t.name != "powershell" && t.name != "pbpaste" {
			return "", fmt.Errorf("%w (%s: %v)", ErrEmpty, t.name, err)
		}
		return "", fmt.Errorf("reading the clipboard with %s: %w", t.name, err)
	}
	if t.name == "powershell" {
		// Get-Clipboard -Raw ends what it prints with a line break.
		out = bytes.TrimSuffix(bytes.TrimSuffix(out, []byte("\n")), []byte("\r"))
	}
	if len(out) == 0 {
		return "", ErrEmpty
	}
	return string(out), nil
}

// ReadImage returns the image on the clipboard as PNG bytes. It is
// ErrNoImage when the clipboard holds none, or when this platform's tool
// reads only text.
func ReadImage(ctx context.Context) ([]byte, error) {
	t, err := find(func(t tool) bool { return t.readPNG != nil })
	if err != nil {
		if errors.Is(err, ErrNoTool) {
			ts, _ := tools()
			for _, c := range ts {
				if _, lerr := exec.LookPath(c.writeOrRead()); lerr == nil {
					return nil, fmt.Errorf("%w: %s reads only text from the clipboard", ErrNoImage, c.name)
				}
			}
		}
		return nil, err
	}
	types, err := run(ctx, t.listTypes, nil)
	if err != nil || !hasLine(types, "image/png") {
		return nil, ErrNoImage
	}
	out, err := run(ctx, t.readPNG, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the image on the clipboard with %s: %w", t.name, err)
	}
	if !bytes.HasPrefix(out, []byte("\x89PNG\r\n\x1a\n")) {
		return nil, fmt.Errorf("%w: %s gave something that is not a PNG", ErrNoImage, t.name)
	}
	return out, nil
}

// WriteText puts text on the clipboard, and returns once the clipboard
// gives it back (or after settleWait: see settle).
func WriteText(ctx context.Context, text string) error {
	t, err := find(func(t tool) bool { return t.writeText != nil })
	if err != nil {
		return err
	}
	if _, err := run(ctx, t.writeText, strings.NewReader(text)); err != nil {
		return fmt.Errorf("writing the clipboard with %s: %w", t.name, err)
	}
	if t.listTypes != nil && text != "" {
		// (Empty, it could not be told from an empty clipboard.)
		settle(ctx, t, text)
	}
	return nil
}

// settleWait bounds how long WriteText waits for its text to be served.
const settleWait = 2 * time.Second

// settle waits until the clipboard gives back text, for at most
// settleWait. xclip and wl-copy return before the child they leave
// behind serves the clipboard: xclip asks the X server for the
// selection, then forks, and its request leaves only when the child
// flushes it, so a program reading the clipboard the moment xclip
// returned could still find the old owner, or none (a test did, under
// the race detector). The text written is not always what comes back
// (a clipboard manager may take it over), so after settleWait WriteText
// returns anyway: the write itself succeeded.
func settle(ctx context.Context, t tool, text string) {
	deadline := time.Now().Add(settleWait)
	for {
		if out, err := run(ctx, t.readText, nil); err == nil && string(out) == text {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// hasText says whether a list of clipboard types has a text type.
func hasText(types []byte) bool {
	for _, l := range strings.Split(string(types), "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "UTF8_STRING", l == "STRING", l == "TEXT", strings.HasPrefix(l, "text/plain"):
			return true
		}
	}
	return false
}

func hasLine(b []byte, line string) bool {
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// run runs argv with stdin and returns its output, at most maxRead bytes.
// A writer (stdin set) gets no pipe for its output: xclip and wl-copy
// leave a child behind to serve the clipboard, and a pipe it inherited
// would keep this call waiting until the clipboard changes hands.
func run(ctx context.Context, argv []string, stdin io.Reader) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if stdin != nil {
		cmd.Stdin = stdin
		if err := cmd.Run(); err != nil {
			return nil, err
		}
		return nil, nil
	}
	var out limited
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return nil, fmt.Errorf("%w: %s", err, firstLine(msg))
		}
		return nil, err
	}
	if out.over {
		return nil, fmt.Errorf("the clipboard holds more than %d MiB", maxRead>>20)
	}
	return out.Bytes(), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// limited is a buffer that keeps at most maxRead bytes and notes more.
type limited struct {
	bytes.Buffer
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if room := maxRead - l.Len(); len(p) > room {
		l.over = true
		l.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return l.Buffer.Write(p)
}
