package main

import (
	"context"
	"fmt"
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
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/tests/proc"
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

// ferry receive --web: a page's WebSocket (a Go sender here; the wasm
// one is core/web's test) is an ordinary sender on the receiver's port,
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
	id := testid.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := transfer.Send(ctx, transfer.SendConfig{Addrs: []string{"page"}, Code: frag.Get("code"), Identity: id, Name: "Browser on Test",
		Items: []event.Item{{Path: filepath.Join(src, "photos")}}, Dialer: func(context.Context, string) (net.Conn, error) { return nc, nil }})
	if err != nil {
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

// ferry send --to-browser: the page (a Go receiver on the WebSocket
// here) runs the receiving side with the code from the link.
func TestE2ESendToBrowser(t *testing.T) {
	src := writeTree(t)
	s := proc.Start(t, ferryCmd(t, "send", "--to-browser", "--listen", "127.0.0.1:0", "--json", filepath.Join(src, "readme.txt")), true)
	ev := s.Until("page", 20*time.Second)
	links, _ := ev["links"].([]any)
	if len(links) == 0 {
		t.Fatalf("page event: %v", ev)
	}
	link := links[0].(string)
	if !regexp.MustCompile(`#code=[0-9]{12}&fp=`).MatchString(link) {
		t.Fatalf("link %q", link)
	}
	nc, frag := pageSocket(t, link)
	dest := t.TempDir()
	id := testid.New(t)
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{Dir: dest, NoListen: true, Code: frag.Get("code"), Identity: id,
		Name: "Browser on Test", Policy: transfer.AcceptAll})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := r.ServeConn(ctx, nc); err != nil {
		t.Fatalf("page receiving: %v", err)
	}
	if code := s.Exit(20 * time.Second); code != 0 {
		t.Fatalf("send --to-browser exit %d:\n%s", code, s.StderrText())
	}
	if got, _ := os.ReadFile(filepath.Join(dest, "readme.txt")); string(got) != "hello from ferry\n" {
		t.Fatalf("page received %q", got)
	}
}

// ferry send --to-browser stops after three pages that ran the page's
// side of the handshake up to message 3, tested their guess against it
// themselves and hung up without a word: before, each was "ended before
// it was secured" and the sender waited for the next, without limit.
// With --json each is an unproven event.
func TestSendToBrowserStopsSilentGuessers(t *testing.T) {
	src := writeTree(t)
	s := proc.Start(t, ferryCmd(t, "send", "--to-browser", "--listen", "127.0.0.1:0", "--json", filepath.Join(src, "readme.txt")), true)
	ev := s.Until("page", 20*time.Second)
	links, _ := ev["links"].([]any)
	if len(links) == 0 {
		t.Fatalf("page event: %v", ev)
	}
	for i := range app.MaxListenerGuesses {
		nc, _ := pageSocket(t, links[0].(string))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		tested := false
		secure.Server(ctx, nc, secure.Config{Identity: testid.New(t), Code: fmt.Sprintf("%012d", i),
			Guess: func(check func() bool) secure.GuessAnswer {
				check() // the offline test of one guess
				tested = true
				nc.Close()
				return secure.Wrong
			}})
		cancel()
		nc.Close()
		if !tested {
			t.Fatalf("guesser %d never got message 3", i+1)
		}
		// Each is an unproven event in --json, counted against the link.
		u := s.Until("unproven", 10*time.Second)
		if u["guessed"] != true || u["wrong"] != float64(i+1) || u["allowed"] != float64(app.MaxListenerGuesses) ||
			u["message"] == "" || u["addr"] == "" {
			t.Fatalf("guesser %d's unproven event: %v", i+1, u)
		}
	}
	if code := s.Exit(20 * time.Second); code == 0 {
		t.Fatalf("send --to-browser succeeded after %d silent guessers", app.MaxListenerGuesses)
	}
	if e := s.StderrText(); !strings.Contains(e, "ended without proving the code (3 of 3 allowed)") ||
		!strings.Contains(e, "stopped waiting for the page") {
		t.Fatalf("send --to-browser's stderr:\n%s", e)
	}
}
