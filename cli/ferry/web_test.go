package main

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/skip2/go-qrcode"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

func TestWebUsageErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(file, []byte("hello"), 0o644)
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"receive", "--qr"}, "--qr goes with --web"},
		{[]string{"send", "--qr", "--to", "127.0.0.1:9", "--code", "1", file}, "--qr goes with --to-browser"},
		{[]string{"send", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--code", "1", file}, "--listen goes with --to-browser"},
		{[]string{"send", "--to-browser", "--to", "127.0.0.1:9", file}, "--to-browser and --to cannot be used together"},
		{[]string{"send", "--to-browser", "--code", "123456", file}, "--to-browser and --code cannot be used together"},
		{[]string{"send", "--to-browser", "--listen", "nowhere", file}, "bad --listen address"},
		{[]string{"send", "--to-browser"}, "nothing to send"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e, _, stderr := testEnv(t)
			if code := run(context.Background(), tt.args, e); code != exitUsage {
				t.Errorf("exit %d, want %d:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) || !strings.Contains(stderr.String(), "ferry: hint: ") {
				t.Errorf("stderr does not say %q with a hint:\n%s", tt.wantErr, stderr)
			}
			checkStderr(t, stderr.String(), true)
		})
	}
}

// The half-block drawing holds every module of the code: read back, two
// rows per line, it is the library's bitmap with light and dark swapped.
func TestQRLines(t *testing.T) {
	link := "http://192.168.1.20:41234/#code=123456&fp=ABCD-EFGH-JKLM-NPQR"
	lines, err := qrLines(link)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := qrcode.New(link, qrcode.Low)
	bm := q.Bitmap()
	if len(lines) != (len(bm)+1)/2 {
		t.Fatalf("%d lines for %d rows", len(lines), len(bm))
	}
	for i, l := range lines {
		cells := []rune(l)
		if len(cells) != len(bm[0]) {
			t.Fatalf("line %d has %d cells, want %d", i, len(cells), len(bm[0]))
		}
		for x, c := range cells {
			top := c == '█' || c == '▀'
			bottom := c == '█' || c == '▄'
			if top != !bm[2*i][x] {
				t.Fatalf("module (%d,%d) drawn wrong", 2*i, x)
			}
			if 2*i+1 < len(bm) && bottom != !bm[2*i+1][x] {
				t.Fatalf("module (%d,%d) drawn wrong", 2*i+1, x)
			}
		}
	}
}

var tokenMeta = regexp.MustCompile(`name="ferry-token" content="([0-9a-f]+)"`)

// pageSocket loads the page at link as a browser would and opens its
// WebSocket with the page's token and Origin, as a net.Conn.
func pageSocket(t *testing.T, link string) (net.Conn, url.Values) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	resp, err := http.Get("http://" + u.Host + "/")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.WriteString(string(buf[:n]))
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	m := tokenMeta.FindStringSubmatch(b.String())
	if m == nil {
		t.Fatalf("no token in the page:\n%s", b.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+u.Host+"/ws?t="+m[1],
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://" + u.Host}}})
	if err != nil {
		t.Fatal(err)
	}
	return websocket.NetConn(context.Background(), c, websocket.MessageBinary), frag
}

// ferry receive --web: a page's WebSocket (a Go sender here, a Node on
// the socket; the wasm one is core/web's test) is an ordinary sender on
// the receiver's port,
// and ferry senders still use the same port.
func TestE2EReceiveWeb(t *testing.T) {
	dest := t.TempDir()
	recv, _ := startReceiver(t, dest, "654321", "--yes", "--web", "--keep")
	ev := recv.Until("page", 20*time.Second)
	links, _ := ev["links"].([]any)
	if len(links) == 0 || ev["page_sha256"] == "" {
		t.Fatalf("page event: %v", ev)
	}
	link := links[0].(string)
	if !strings.Contains(link, "#code=654321&fp=") || !strings.HasPrefix(link, "http://127.0.0.1:") {
		t.Fatalf("link %q", link)
	}
	src := writeTree(t)
	nc, frag := pageSocket(t, link)
	browser, err := app.New(app.Config{Name: "Browser on Test", ConfigDir: t.TempDir(), NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer browser.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := browser.Send(ctx, app.SendConfig{Addrs: []string{"page"}, Code: frag.Get("code"),
		Items: []event.Item{{Path: filepath.Join(src, "photos")}}, Dialer: func(context.Context, string) (net.Conn, error) { return nc, nil }}).Wait()
	if err := res.Err; err != nil {
		t.Fatalf("send over the page's WebSocket: %v", err)
	}
	if c := recv.Until("connected", 10*time.Second); c["peer_name"] != "Browser on Test" || frag.Get("fp") == "" {
		t.Errorf("connected: %v (fp in link %q)", c, frag.Get("fp"))
	}
	recv.Until("done", 10*time.Second)
	want, _ := os.ReadFile(filepath.Join(src, "photos", "2026", "beach.raw"))
	got, _ := os.ReadFile(filepath.Join(dest, "photos", "2026", "beach.raw"))
	if len(want) == 0 || string(got) != string(want) {
		t.Fatalf("received %d bytes, want %d", len(got), len(want))
	}
	recv.Signal(os.Interrupt)
	recv.Exit(10 * time.Second)
}
