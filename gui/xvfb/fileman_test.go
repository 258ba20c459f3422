package xvfb

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/gui/fmactions"
)

// TestSendWithFerry runs the real app the way a file manager does and
// checks what it holds through the state file it writes when
// FERRY_GUI_STATE is set (a JSON list of the Send view's entries), and
// what it put on the real X clipboard with xclip:
//
//  1. the desktop entry's Exec line, its %F expanded to two files (one
//     with spaces in its name), as a file manager would: the Send view
//     lists exactly those files;
//  2. the Nautilus/Caja script with a third file, named relative to the
//     folder it runs in: a second ferry-gui, which hands the file to the
//     running app and exits; then the desktop entry's send action, the
//     Nemo action and the Dolphin service menu, the same way;
//  3. Ctrl+Shift+V (Send clipboard) typed with xdotool after xclip put a
//     text on the clipboard: the text is an entry;
//  4. a text from a trusted device (the app's trust file pins the test's
//     key; the settings say to put such texts on the clipboard): the
//     clipboard holds it afterwards, read back with xclip.
//
// Screens 1, 3 and 4 are kept in gui/screenshots.
func TestSendWithFerry(t *testing.T) {
	root := repoRoot(t)
	bin := filepath.Join(root, "bin", "ferry-gui")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: build it with make ferry-gui (make e2e does)", bin)
	}
	for _, tool := range []string{"Xvfb", "import", "convert", "compare", "xwininfo", "xclip", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: tests/install-deps.sh installs it", tool)
		}
	}
	display := startXvfb(t)
	tmp := t.TempDir()
	files := filepath.Join(tmp, "Documents")
	os.MkdirAll(files, 0o755)
	one := filepath.Join(files, "holiday photo.jpg")
	two := filepath.Join(files, "notes.txt")
	three := filepath.Join(files, "third one.pdf")
	for _, f := range []string{one, two, three} {
		if err := os.WriteFile(f, []byte("content of "+filepath.Base(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The app's device: its key, a trusted sender, its settings.
	configDir := filepath.Join(tmp, "ferry")
	appKey := deviceKey(t, configDir)
	sender, err := app.New(app.Config{Name: "Laptop", ConfigDir: filepath.Join(tmp, "laptop"), NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sender.Close()
	store, err := stores.OpenTrust(configDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Add(stores.Device{Name: "Laptop", Key: sender.PublicKey()}); err != nil {
		t.Fatal(err)
	}
	prefs := filepath.Join(tmp, "config", "fyne", "io.github.ferry-project.ferry", "preferences.json")
	os.MkdirAll(filepath.Dir(prefs), 0o755)
	os.WriteFile(prefs, []byte(`{"autoAcceptTrusted":true,"textsToClipboard":true,"downloadDir":"`+filepath.Join(tmp, "Downloads")+`"}`), 0o644)
	port := freePort(t)
	state := filepath.Join(tmp, "state.json")
	env := append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"XDG_RUNTIME_DIR="+mkdir(t, filepath.Join(tmp, "run")),
		"FERRY_CONFIG_DIR="+configDir,
		"FERRY_NO_DISCOVERY=1", // never multicast from a test
		"FERRY_LISTEN=127.0.0.1:"+port,
		"FERRY_GUI_STATE="+state,
		// "ferry-gui" in the Exec line and the script is this build.
		"PATH="+filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
	)

	// 1. The desktop entry's Exec line, as a file manager runs it.
	argv := execLine(t, filepath.Join(root, "cli", "ferry-dist", "assets", "io.github.ferry-project.ferry.desktop"), []string{one, two})
	ctx, cancel := context.WithCancel(context.Background())
	// env(1) finds the program on the PATH given to it, as a launcher
	// would, and becomes it.
	guiCmd := exec.CommandContext(ctx, "env", argv...)
	guiCmd.Env = env
	var logs strings.Builder
	guiCmd.Stdout, guiCmd.Stderr = &logs, &logs
	if err := guiCmd.Start(); err != nil {
		cancel()
		t.Fatalf("running the Exec line %q: %v", argv, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- guiCmd.Wait() }()
	defer func() {
		cancel()
		<-exited
	}()
	waitState(t, state, exited, &logs, "the two files", func(s appState) bool { return len(s.Send) == 2 })
	if got := sendPaths(readAppState(t, state)); !reflect.DeepEqual(got, []string{one, two}) {
		t.Fatalf("Send list %q, want exactly %q", got, []string{one, two})
	}
	shoot(t, display, "send-from-file-manager.png", false)

	// 2. A second ferry-gui, from the file manager's script.
	script := filepath.Join(tmp, "Send with Ferry")
	os.WriteFile(script, []byte(fmactions.Script), 0o755)
	second := exec.Command(script, filepath.Base(three))
	second.Dir, second.Env = files, env
	if out, err := second.CombinedOutput(); err != nil {
		t.Fatalf("the script's ferry-gui did not hand over and exit: %v\n%s", err, out)
	}
	waitState(t, state, exited, &logs, "the third file", func(s appState) bool { return len(s.Send) == 3 })
	if got := sendPaths(readAppState(t, state)); !reflect.DeepEqual(got, []string{one, two, three}) {
		t.Fatalf("after the hand-off the Send list is %q", got)
	}

	// The other entries' Exec lines, each with a file of its own: the
	// desktop entry's send action, Nemo's action, Dolphin's service menu.
	// Each is a second ferry-gui that hands over and exits.
	entry, err := os.ReadFile(filepath.Join(root, "cli", "ferry-dist", "assets", "io.github.ferry-project.ferry.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	want := sendPaths(readAppState(t, state))
	for _, e := range []struct{ name, text, group string }{
		{"desktop action", string(entry), "[Desktop Action send]"},
		{"Nemo action", fmactions.NemoAction, "[Nemo Action]"},
		{"Dolphin service menu", fmactions.DolphinServiceMenu, "[Desktop Action send]"},
	} {
		f := filepath.Join(files, e.name+".txt")
		os.WriteFile(f, []byte(e.name), 0o644)
		cmd := exec.Command("env", expandExec(t, e.text, e.group, []string{f})...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the %s's Exec line: %v\n%s", e.name, err, out)
		}
		want = append(want, f)
		waitState(t, state, exited, &logs, "the "+e.name+"'s file", func(s appState) bool { return len(s.Send) == len(want) })
	}
	if got := sendPaths(readAppState(t, state)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the file managers' entries the Send list is %q, want %q", got, want)
	}

	// 3. Send clipboard, with what xclip put on the real clipboard.
	const copied = "Door code 4711, second floor"
	xclipIn(t, display, copied)
	xdo(t, display, "search", "--name", "^Ferry$", "windowfocus", "--sync", "key", "ctrl+shift+v")
	n := len(want)
	waitState(t, state, exited, &logs, "the clipboard's text", func(s appState) bool { return len(s.Send) == n+1 })
	if s := readAppState(t, state).Send[n]; s.Kind != "text" || s.Text != copied {
		t.Fatalf("Send clipboard added %+v, want the text %q", s, copied)
	}
	shoot(t, display, "send-clipboard.png", false)

	// 4. A trusted device's text lands on the real clipboard.
	const sent = "ssh-ed25519 AAAAC3Nza laptop@home"
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	if err := sender.Send(sctx, app.SendConfig{
		Addrs: []string{"127.0.0.1:" + port}, Pin: &stores.Device{Name: "Ferry", Key: appKey},
		Items: []event.Item{{Text: sent}},
	}).Wait().Err; err != nil {
		t.Fatalf("sending a text from the trusted device: %v\n%s", err, logs.String())
	}
	deadline := time.Now().Add(20 * time.Second)
	for xclipOut(t, display) != sent {
		if time.Now().After(deadline) {
			t.Fatalf("the clipboard holds %q, want the trusted device's text", xclipOut(t, display))
		}
		time.Sleep(100 * time.Millisecond) // another process: nothing to wait on but the clipboard
	}
	shoot(t, display, "text-on-clipboard.png", true)
}

// appState is what FERRY_GUI_STATE holds (gui/ui's state).
type appState struct {
	View string `json:"view"`
	Send []struct {
		Kind string `json:"kind"`
		Path string `json:"path"`
		Text string `json:"text"`
	} `json:"send"`
}

func readAppState(t *testing.T, path string) appState {
	t.Helper()
	var s appState
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatalf("reading the app's state: %v", err)
	}
	return s
}

func sendPaths(s appState) []string {
	var out []string
	for _, e := range s.Send {
		out = append(out, e.Path)
	}
	return out
}

// waitState polls the state file until cond holds. The app is another
// process that writes the file when its list changes: there is nothing
// to wait on but the file.
func waitState(t *testing.T, path string, exited chan error, logs *strings.Builder, what string, cond func(appState) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("ferry-gui exited early (%v):\n%s", err, logs.String())
		default:
		}
		if b, err := os.ReadFile(path); err == nil {
			var s appState
			if json.Unmarshal(b, &s) == nil && cond(s) {
				return
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			t.Fatalf("waiting for %s; state file:\n%s\nlogs:\n%s", what, b, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// execLine reads the entry's Exec key and expands it as the desktop entry
// spec says a launcher does: %F becomes one argument per file, %% a
// percent sign, and double quotes group an argument.
func execLine(t *testing.T, desktop string, files []string) []string {
	t.Helper()
	b, err := os.ReadFile(desktop)
	if err != nil {
		t.Fatal(err)
	}
	return expandExec(t, string(b), "[Desktop Entry]", files)
}

// expandExec expands the Exec key of group in the text of a desktop
// entry (or a file in its format: Nemo's actions).
func expandExec(t *testing.T, text, wantGroup string, files []string) []string {
	t.Helper()
	var line string
	group := ""
	for sc := bufio.NewScanner(strings.NewReader(text)); sc.Scan(); {
		l := sc.Text()
		if strings.HasPrefix(l, "[") {
			group = l
		} else if group == wantGroup && strings.HasPrefix(l, "Exec=") {
			line = strings.TrimPrefix(l, "Exec=")
		}
	}
	if line == "" {
		t.Fatalf("no Exec line in group %s of:\n%s", wantGroup, text)
	}
	var argv []string
	for _, word := range splitExec(t, line) {
		switch word {
		case "%F", "%U":
			argv = append(argv, files...)
		case "%f", "%u":
			argv = append(argv, files[0])
		default:
			if strings.Contains(strings.ReplaceAll(word, "%%", ""), "%") {
				t.Fatalf("Exec line %q: field code in %q that this test does not expand", line, word)
			}
			argv = append(argv, strings.ReplaceAll(word, "%%", "%"))
		}
	}
	return argv
}

func splitExec(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	quoted, have := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			quoted, have = !quoted, true
		case c == '\\' && quoted && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case c == ' ' && !quoted:
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if quoted {
		t.Fatalf("Exec line %q: unbalanced quotes", line)
	}
	if have {
		words = append(words, cur.String())
	}
	return words
}

// shoot keeps a capture of the Ferry window once it renders the same
// twice. A view that shows a measured rate differs on every run: varies
// keeps it only when there is none yet, so test runs leave it alone.
func shoot(t *testing.T, display, name string, varies bool) {
	t.Helper()
	tmp := t.TempDir()
	raw, shot := filepath.Join(tmp, "root.png"), filepath.Join(tmp, "window.png")
	deadline := time.Now().Add(30 * time.Second)
	for {
		geo, err := windowGeometry(display)
		if err == nil {
			crop := fmt.Sprintf("%dx%d+%d+%d", geo[2], geo[3], geo[0], geo[1])
			if err := run(display, "import", "-window", "root", raw); err != nil {
				t.Fatal(err)
			}
			if err := run(display, "convert", raw, "-crop", crop, "+repage", "-strip", shot); err != nil {
				t.Fatal(err)
			}
			if settled(t, display, raw, shot, crop) {
				dst := filepath.Join(repoRoot(t), "gui", "screenshots", name)
				if _, err := os.Stat(dst); err != nil || !varies {
					keep(t, shot, dst)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window never settled for %s", name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func xclipIn(t *testing.T, display, text string) {
	t.Helper()
	cmd := exec.Command("xclip", "-selection", "clipboard", "-i")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	cmd.Stdin = strings.NewReader(text)
	if err := cmd.Run(); err != nil {
		t.Fatalf("xclip -i: %v", err)
	}
}

func xclipOut(t *testing.T, display string) string {
	cmd := exec.Command("xclip", "-selection", "clipboard", "-o")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, _ := cmd.Output()
	return string(out)
}

func xdo(t *testing.T, display string, args ...string) {
	t.Helper()
	if err := run(display, "xdotool", args...); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func mkdir(t *testing.T, dir string) string {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
