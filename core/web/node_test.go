package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

// The wasm build under Node: the real ferry.wasm, driven through its
// JavaScript bridge by testdata/node_driver.js as the page drives it,
// sends to and receives from a real Receiver and a real sender through
// the real page server. It proves the core compiled to WebAssembly
// without a browser (core/web's chromedp tests do it in Chromium).
// Node stands in for the browser's File and WebSocket objects.

var wasmOnce struct {
	sync.Once
	dir  string
	err  error
	out  []byte
	exec string
}

// buildWasm compiles gui/page/wasm once per test binary (about 20 s
// cold, a second or two from the build cache).
func buildWasm(t *testing.T) (wasm, execJS string) {
	t.Helper()
	wasmOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ferry-wasm-test")
		if err != nil {
			wasmOnce.err = err
			return
		}
		wasmOnce.dir = dir
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "ferry.wasm"), "../../gui/page/wasm")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
		wasmOnce.out, wasmOnce.err = cmd.CombinedOutput()
		if wasmOnce.err != nil {
			return
		}
		root, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			wasmOnce.err = err
			return
		}
		wasmOnce.exec = filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js")
	})
	if wasmOnce.err != nil {
		t.Fatalf("building ferry.wasm: %v\n%s", wasmOnce.err, wasmOnce.out)
	}
	return filepath.Join(wasmOnce.dir, "ferry.wasm"), wasmOnce.exec
}

func TestMain(m *testing.M) {
	code := m.Run()
	if wasmOnce.dir != "" {
		os.RemoveAll(wasmOnce.dir)
	}
	os.Exit(code)
}

// nodeOrSkip returns the node binary, skipping when there is none that
// has File and WebSocket (Node 20.10 and later).
func nodeOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test builds ferry.wasm")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not installed (tests/install-deps.sh installs nodejs)")
	}
	out, err := exec.Command(node, "--experimental-websocket", "-e",
		`process.stdout.write(typeof WebSocket + " " + typeof File)`).CombinedOutput()
	if err != nil || string(out) != "function function" {
		v, _ := exec.Command(node, "--version").Output()
		missing(t, fmt.Sprintf("node %s has no WebSocket or File (Node 20.10 or later has both): %s", strings.TrimSpace(string(v)), out))
	}
	return node
}

type nodeFile struct {
	Path  string `json:"path"`
	Data  string `json:"data"`
	MTime int64  `json:"mtime"`
}

type nodeSpec struct {
	Op     string     `json:"op"`
	URL    string     `json:"url"`
	Origin string     `json:"origin"`
	Code   string     `json:"code"`
	FP     string     `json:"fp"`
	Name   string     `json:"name"`
	Files  []nodeFile `json:"files,omitempty"`
	Out    string     `json:"out,omitempty"`
}

// runNode runs the driver and returns every line it printed, as JSON
// objects.
func runNode(t *testing.T, node string, spec nodeSpec) []map[string]any {
	t.Helper()
	wasm, execJS := buildWasm(t)
	js, _ := json.Marshal(spec)
	specFile := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(specFile, js, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--experimental-websocket", "testdata/node_driver.js", wasm, execJS, specFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("driver printed %q: %v\nstderr: %s", sc.Text(), err, stderr.String())
		}
		lines = append(lines, m)
	}
	if len(lines) == 0 {
		t.Fatalf("driver printed nothing (%v); stderr: %s", runErr, stderr.String())
	}
	return lines
}

func last(lines []map[string]any) map[string]any { return lines[len(lines)-1] }

func find(lines []map[string]any, typ string) map[string]any {
	for _, l := range lines {
		if l["event"] == typ {
			return l
		}
	}
	return nil
}

// pickedFiles is what a person picks: a folder of files (one large
// enough for many chunks), as File objects with webkitRelativePath.
func pickedFiles(t *testing.T, bigSize int) ([]nodeFile, map[string][]byte) {
	big := make([]byte, bigSize)
	rand.Read(big)
	want := map[string][]byte{"photos/a.txt": []byte("hello from the page\n"), "photos/sub/big.bin": big, "photos/empty": {}}
	var files []nodeFile
	for p, b := range want {
		files = append(files, nodeFile{Path: p, Data: base64.StdEncoding.EncodeToString(b), MTime: 1700000000123})
	}
	return files, want
}

func checkFiles(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	for p, b := range want {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", p, len(got), err, len(b))
		}
	}
}

// wasmServer serves the real ferry.wasm with the test page.
func wasmServer(t *testing.T, cfg Config) (*Mux, string) {
	wasm, execJS := buildWasm(t)
	files := pageFiles()
	for name, path := range map[string]string{"ferry.wasm": wasm, "wasm_exec.js": execJS} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: b}
	}
	cfg.Files = files
	return startMux(t, cfg)
}

func TestWasmSendsUnderNode(t *testing.T) {
	node := nodeOrSkip(t)
	m, addr := wasmServer(t, Config{Name: "desk"})
	dest := t.TempDir()
	id := testid.New(t)
	var mu sync.Mutex
	var peers []string
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Code: "424242", Listener: m, Identity: id,
		Name: "desk", Policy: receive.AcceptAll, Timeout: 10 * time.Second, OnEvent: func(ev event.Event) {
			if c, ok := ev.(event.Connected); ok {
				mu.Lock()
				peers = append(peers, c.PeerName)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	// The receiver serves one transfer after another, as ferry receive
	// --keep does, until the test ends.
	results := make(chan error, 4)
	over := make(chan struct{})
	go func() {
		defer close(over)
		for {
			_, err := r.Serve(context.Background())
			if errors.Is(err, transfer.ErrCancelled) || errors.Is(err, net.ErrClosed) || strings.Contains(fmt.Sprint(err), "receiver closed") {
				return
			}
			results <- err
		}
	}()
	defer func() { r.Close(); <-over }()

	spec := nodeSpec{Op: "send", URL: "ws://" + addr + "/ws?t=" + testToken, Origin: "http://" + addr,
		Code: "000000", FP: id.Fingerprint(), Name: "Browser on Node"}
	var want map[string][]byte
	spec.Files, want = pickedFiles(t, 12<<20+5)

	// A wrong code gets the page's own error, and the receiver counts it
	// and goes on waiting.
	lines := runNode(t, node, spec)
	if f, _ := last(lines)["failed"].(map[string]any); f == nil || f["kind"] != "wrong_code" {
		t.Fatalf("wrong code from the page: %v", last(lines))
	}

	// The right code; the connection drops mid-way, and the same files
	// sent again from the same page resume.
	spec.Code, spec.Op = "424242", "send-drop"
	lines = runNode(t, node, spec)
	res, _ := last(lines)["result"].(map[string]any)
	if res == nil {
		t.Fatalf("send from the page: %v", last(lines))
	}
	if err := <-results; err == nil {
		t.Fatal("the dropped transfer succeeded on the receiver")
	}
	if err := <-results; err != nil {
		t.Fatalf("receiver, after the resume: %v", err)
	}
	checkFiles(t, dest, want)
	if rb, _ := res["resumed_bytes"].(float64); rb <= 0 {
		t.Errorf("nothing resumed: %v", res)
	}
	if c := find(lines, "connected"); c == nil || c["fp_match"] != true || c["peer_name"] != "desk" {
		t.Errorf("connected event: %v", c)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(peers) == 0 || peers[len(peers)-1] != "Browser on Node" {
		t.Errorf("receiver saw senders %q", peers)
	}
}

// ferry send --to-browser's path: the desktop accepts the page's
// WebSocket and sends on it; the page runs the receiver side with the
// code from the link and hands each verified file to its sink.
func TestWasmReceivesUnderNode(t *testing.T) {
	node := nodeOrSkip(t)
	m, addr := wasmServer(t, Config{Name: "desk", ToBrowser: true})
	src := t.TempDir()
	_, want := pickedFiles(t, 3<<20+7)
	for p, b := range want {
		f := filepath.Join(src, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, b, 0o644)
	}
	sent := make(chan error, 1)
	go func() {
		nc, err := m.Accept()
		if err != nil {
			sent <- err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err = send.Send(ctx, send.SendConfig{Addrs: []string{"page"}, Code: "515151", Identity: testid.New(t), Name: "desk",
			Items:  []transfer.Item{{Path: filepath.Join(src, "photos")}},
			Dialer: func(context.Context, string) (net.Conn, error) { return nc, nil }, Timeout: 10 * time.Second})
		sent <- err
	}()
	out := t.TempDir()
	lines := runNode(t, node, nodeSpec{Op: "receive", URL: "ws://" + addr + "/ws?t=" + testToken, Origin: "http://" + addr,
		Code: "515151", Name: "Browser on Node", Out: out})
	if res, _ := last(lines)["result"].(map[string]any); res == nil {
		t.Fatalf("receive in the page: %v", last(lines))
	}
	if err := <-sent; err != nil {
		t.Fatalf("desktop sender: %v", err)
	}
	checkFiles(t, out, want)
	if find(lines, "offer") == nil {
		t.Error("no offer event")
	}
}

// missing fails the test as root, where make test installs a recent
// Node (tests/install-deps.sh), so that CI never passes it by skipping;
// elsewhere it skips with the reason.
func missing(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Fatal(why)
	}
	t.Skip("not root (as root, where make test installs Node, this fails): " + why)
}
