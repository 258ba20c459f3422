package tests

// The browser page (issue 14) in a real headless Chromium (tests/browser)
// against the real bin/ferry, on loopback. The page is opened as a phone
// on the LAN opens it, http://192.168.213.7:PORT/ (browser.LANAddr,
// which the harness's proxy maps to 127.0.0.1): not a secure context, so
// it saves what it receives the way a phone does. No root needed; the
// tests skip, saying why, only when Chromium is not installed.

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/browser"
	"github.com/ferry-project/ferry/tests/proc"
)

// pageLink waits for the "page" event and returns its first link with
// the host made LANAddr, and the port.
func pageLink(t *testing.T, p *proc.Proc) (lan *url.URL, port string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-p.Events:
			if !ok {
				t.Fatalf("ferry exited before printing the page's link; stderr:\n%s", p.StderrText())
			}
			links, _ := ev["links"].([]any)
			if ev["event"] != "page" || len(links) == 0 {
				continue
			}
			s, _ := links[0].(string)
			u, err := url.Parse(s)
			if err != nil {
				t.Fatalf("the link %q: %v", s, err)
			}
			if q, err := url.ParseQuery(u.Fragment); err != nil || q.Get("code") == "" {
				t.Fatalf("the link %q has no code in its fragment", s)
			}
			port = u.Port()
			u.Host = net.JoinHostPort(browser.LANAddr, port)
			return u, port
		case <-deadline:
			t.Fatalf("no page link within 20s; stderr:\n%s", p.StderrText())
		}
	}
}

// waitEvent returns the next event named name, skipping others.
func waitEvent(t *testing.T, p *proc.Proc, name string) map[string]any {
	t.Helper()
	return p.Until(name, 60*time.Second)
}

func command(name string, args ...string) *exec.Cmd {
	return exec.Command(name, args...)
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestBrowserSendsTree: the page picks a folder tree through its folder
// input and sends it to `ferry receive --web`; the bytes arrive
// identical, and the receiver saw the page as an ordinary sender named
// after the browser.
func TestBrowserSendsTree(t *testing.T) {
	b := browser.Start(t)
	dest := t.TempDir()
	recv := proc.Start(t, command(proc.Ferry(t), "receive", "--web", "--dir", dest, "--code", "246810",
		"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0"), true)
	link, _ := pageLink(t, recv)

	mustDo(t, b.Open(link.String()))
	_, err := b.WaitText(30*time.Second, "Pick files")
	mustDo(t, err)
	src := tree(t)
	mustDo(t, b.Upload("#folder", src))
	_, err = b.WaitText(5*time.Second, "4 files")
	mustDo(t, err)
	mustDo(t, b.Click("#send"))
	ev := waitEvent(t, recv, "connected")
	if name, _ := ev["peer_name"].(string); name != "Browser on Android" {
		t.Errorf("the receiver sees the page as %q, want %q", name, "Browser on Android")
	}
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	mustDo(t, err)
	if c := recv.Exit(20 * time.Second); c != 0 {
		t.Fatalf("receive exited %d; stderr:\n%s", c, recv.Stderr)
	}
	// An empty folder has no file for a folder input to list: the page
	// cannot send it.
	os.Remove(filepath.Join(src, "empty dir"))
	sameTree(t, filepath.Dir(src), dest)
}

// TestBrowserReceives: `ferry send --to-browser` sends a tree into the
// page, which saves each file through the browser's downloads (the
// memory method, as on a phone: folders flattened); every download is
// compared with its source.
func TestBrowserReceives(t *testing.T) {
	b := browser.Start(t)
	src := tree(t)
	send := proc.Start(t, command(proc.Ferry(t), "send", "--to-browser", "--json",
		"--listen", "127.0.0.1:0", src), true)
	link, _ := pageLink(t, send)

	mustDo(t, b.Open(link.String()))
	_, err := b.WaitText(30*time.Second, "Receive")
	mustDo(t, err)
	text, _ := b.Text()
	if !strings.Contains(text, "once it has arrived whole") {
		t.Errorf("the receive view does not say how this browser saves files:\n%s", text)
	}
	mustDo(t, b.Click("#receive"))
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	mustDo(t, err)
	if c := send.Exit(20 * time.Second); c != 0 {
		t.Fatalf("send exited %d; stderr:\n%s", c, send.Stderr)
	}
	want := map[string]string{
		"a.txt":            filepath.Join(src, "a.txt"),
		"empty":            filepath.Join(src, "empty"),
		"ünïcode – ok.txt": filepath.Join(src, "sub dir", "ünïcode – ok.txt"),
		"x.bin":            filepath.Join(src, "sub dir", "deep", "er", "x.bin"),
	}
	paths, err := b.WaitDownloads(len(want), 30*time.Second)
	mustDo(t, err)
	for _, p := range paths {
		name := filepath.Base(p)
		s, ok := want[name]
		if !ok {
			t.Errorf("unexpected download %s", name)
			continue
		}
		delete(want, name)
		got, _ := os.ReadFile(p)
		exp, _ := os.ReadFile(s)
		if !bytes.Equal(got, exp) {
			t.Errorf("download %s: %d bytes, want %d bytes of %s", name, len(got), len(exp), s)
		}
	}
	for name := range want {
		t.Errorf("%s was not downloaded", name)
	}
}

// TestBrowserWrongCode: a link with a wrong code gives the page's own
// words for it, and the receiver counts it: the right code afterwards
// connects with wrong_codes 1.
func TestBrowserWrongCode(t *testing.T) {
	b := browser.Start(t)
	dest := t.TempDir()
	recv := proc.Start(t, command(proc.Ferry(t), "receive", "--web", "--dir", dest, "--code", "246810",
		"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0"), true)
	link, _ := pageLink(t, recv)
	right := link.String()
	q, _ := url.ParseQuery(link.Fragment)
	q.Set("code", "135799")
	link.Fragment = q.Encode()

	f := filepath.Join(t.TempDir(), "note.txt")
	os.WriteFile(f, []byte("hello from the phone\n"), 0o644)
	mustDo(t, b.Open(link.String()))
	_, err := b.WaitText(30*time.Second, "Pick files")
	mustDo(t, err)
	mustDo(t, b.Upload("#files", f))
	mustDo(t, b.Click("#send"))
	_, err = b.WaitText(30*time.Second, "did not accept the code")
	mustDo(t, err)

	// A new load, as a person scanning the code again makes.
	mustDo(t, b.Open("about:blank"))
	mustDo(t, b.Open(right))
	_, err = b.WaitText(30*time.Second, "Pick files")
	mustDo(t, err)
	mustDo(t, b.Upload("#files", f))
	mustDo(t, b.Click("#send"))
	ev := waitEvent(t, recv, "connected")
	if n, _ := ev["wrong_codes"].(float64); n != 1 {
		t.Errorf("the receiver counted %v wrong codes, want 1: %v", ev["wrong_codes"], ev)
	}
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	mustDo(t, err)
	got, _ := os.ReadFile(filepath.Join(dest, "note.txt"))
	if string(got) != "hello from the phone\n" {
		t.Errorf("note.txt arrived as %q", got)
	}
}

// TestBrowserOtherOriginRefused: a page from another origin cannot open
// the receiver's WebSocket even with the token, and an upgrade from the
// page's own origin without the token is refused.
func TestBrowserOtherOriginRefused(t *testing.T) {
	b := browser.Start(t)
	recv := proc.Start(t, command(proc.Ferry(t), "receive", "--web", "--dir", t.TempDir(), "--code", "246810",
		"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0"), true)
	link, port := pageLink(t, recv)

	// The token, read as the page's own origin would.
	mustDo(t, b.Open(link.String()))
	var token string
	mustDo(t, b.Eval(`document.querySelector('meta[name="ferry-token"]').content`, &token))
	if token == "" || strings.Contains(token, "{{") {
		t.Fatalf("the page carries no token: %q", token)
	}

	// Another site on this machine: a page served from another port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	mustDo(t, err)
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><p id=r>trying</p>`)
	})}
	go other.Serve(ln)
	t.Cleanup(func() { other.Close() })
	_, otherPort, _ := net.SplitHostPort(ln.Addr().String())
	mustDo(t, b.Open("http://"+browser.LANAddr+":"+otherPort+"/"))
	var res string
	mustDo(t, b.Eval(fmt.Sprintf(`new Promise(done => {
		const ws = new WebSocket('ws://%s:%s/ws?t=%s');
		ws.onopen = () => done('opened');
		ws.onerror = () => done('refused');
	})`, browser.LANAddr, port, token), &res))
	if res != "refused" {
		t.Errorf("a page from another origin opened the receiver's WebSocket: %s", res)
	}
	// Its fetch of the page cannot read the token either (no CORS).
	mustDo(t, b.Eval(fmt.Sprintf(`fetch('http://%s:%s/').then(r => r.text()).then(() => 'read', () => 'refused')`,
		browser.LANAddr, port), &res))
	if res != "refused" {
		t.Errorf("a page from another origin read the receiver's page: %s", res)
	}

	// The page's own origin, no token: refused before any upgrade.
	for _, c := range []struct{ name, query, origin string }{
		{"no token", "", "http://127.0.0.1:" + port},
		{"wrong token", "?t=" + strings.Repeat("0", len(token)), "http://127.0.0.1:" + port},
		{"other origin", "?t=" + token, "http://127.0.0.1:" + otherPort},
	} {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+port+"/ws"+c.query, nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		req.Header.Set("Origin", c.origin)
		resp, err := http.DefaultClient.Do(req)
		mustDo(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: upgrade answered %s, want 403 Forbidden", c.name, resp.Status)
		}
	}
}

// TestBrowserOneOfSeveral: the page is one of two senders at once into
// `ferry receive --web --max-transfers 3`, beside a `ferry send` on the
// same port (the page's mux serves both): both trees arrive identical,
// and the receiver's --json events name two distinct transfers, each
// from its "connected" to its "done". --keep holds the receiver open:
// without it, ferry receive --max-transfers ends once no transfer is in
// progress. The page sends 36 MiB and the CLI sender starts once the
// page has connected: the CLI's "connected" must come before the page's
// "done" (it does by seconds here: the page's wasm is the slow end).
func TestBrowserOneOfSeveral(t *testing.T) {
	b := browser.Start(t)
	dest := t.TempDir()
	recv := proc.Start(t, command(proc.Ferry(t), "receive", "--web", "--dir", dest, "--code", "246810",
		"--yes", "--json", "--no-mdns", "--listen", "127.0.0.1:0", "--max-transfers", "3", "--keep"), true)
	link, port := pageLink(t, recv)

	mustDo(t, b.Open(link.String()))
	_, err := b.WaitText(30*time.Second, "Pick files")
	mustDo(t, err)
	src := tree(t)
	// The page's transfer is the long one: the CLI sender starts once it
	// has connected, so that the two run at once.
	pageBig := bytes.Repeat([]byte("ferry page sender "), 2<<20)
	mustDo(t, os.WriteFile(filepath.Join(src, "page.bin"), pageBig, 0o644))
	mustDo(t, b.Upload("#folder", src))
	_, err = b.WaitText(5*time.Second, "5 files")
	mustDo(t, err)

	cliBig := bytes.Repeat([]byte("ferry cli sender "), 1<<20)
	big := filepath.Join(t.TempDir(), "cli.bin")
	mustDo(t, os.WriteFile(big, cliBig, 0o644))
	var send *proc.Proc
	mustDo(t, b.Click("#send"))
	ids, overlapped := severalDone(t, recv, 2, func() {
		send = proc.Start(t, command(proc.Ferry(t), "send", "--to", "127.0.0.1:"+port, "--code", "246810", "--json", big), true)
	})
	if !overlapped {
		t.Fatalf("transfers %v ran one after the other: the CLI sender's connected after the page's was done", ids)
	}
	if c := send.Exit(60 * time.Second); c != 0 {
		t.Fatalf("ferry send exited %d; stderr:\n%s", c, send.Stderr)
	}
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	mustDo(t, err)
	got, err := os.ReadFile(filepath.Join(dest, "cli.bin"))
	if err != nil || !bytes.Equal(got, cliBig) {
		t.Fatalf("the CLI sender's file did not arrive whole: %v", err)
	}
	mustDo(t, os.Remove(filepath.Join(dest, "cli.bin")))
	os.Remove(filepath.Join(src, "empty dir"))
	sameTree(t, filepath.Dir(src), dest)
}

// severalDone reads p's events until count transfers are done, each
// with an id of its own that its "connected" named first, and reports
// the ids and whether one connected while another was in progress.
// first runs when the first transfer has connected.
func severalDone(t *testing.T, p *proc.Proc, count int, first func()) (ids []float64, overlapped bool) {
	t.Helper()
	state := map[float64]string{}
	running := 0
	deadline := time.After(90 * time.Second)
	for len(ids) < count {
		var ev map[string]any
		select {
		case e, ok := <-p.Events:
			if !ok {
				t.Fatalf("ferry exited (%d of %d transfers done: %v); stderr:\n%s", len(ids), count, state, p.StderrText())
			}
			ev = e
		case <-deadline:
			t.Fatalf("%d of %d transfers done within 90s: %v", len(ids), count, state)
		}
		id, _ := ev["transfer"].(float64)
		switch ev["event"] {
		case "connected":
			if id == 0 || state[id] != "" {
				t.Fatalf("connected without a transfer id of its own: %v (seen %v)", ev, state)
			}
			state[id] = "connected"
			if len(state) == 1 {
				first()
			}
			running++
			overlapped = overlapped || running > 1
		case "done", "error":
			if state[id] != "connected" {
				t.Fatalf("%v for a transfer not in progress (seen %v)", ev, state)
			}
			if ev["event"] == "error" {
				t.Fatalf("transfer %v failed: %v", id, ev)
			}
			state[id] = "done"
			running--
			ids = append(ids, id)
		}
	}
	return ids, overlapped
}

// TestBrowserReceivesAfterReload: the page receiving from `ferry send
// --to-browser` is reloaded in the middle of its second file. The send
// was cut after the page proved the code, so ferry says so and keeps
// the page served; the reloaded page says what did not arrive, and
// pressing Receive there gets every file; ferry then exits 0.
func TestBrowserReceivesAfterReload(t *testing.T) {
	b := browser.Start(t)
	src := t.TempDir()
	mustDo(t, os.WriteFile(filepath.Join(src, "list.txt"), []byte("milk\neggs\n"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(src, "video.mp4"), bytes.Repeat([]byte("0123456789abcdef"), 4<<20), 0o644)) // 64 MiB
	send := proc.Start(t, command(proc.Ferry(t), "send", "--to-browser", "--json", "--listen", "127.0.0.1:0",
		filepath.Join(src, "list.txt"), filepath.Join(src, "video.mp4")), true)
	link, _ := pageLink(t, send)

	mustDo(t, b.Open(link.String()))
	_, err := b.WaitText(30*time.Second, "Receive")
	mustDo(t, err)
	mustDo(t, b.Click("#receive"))
	_, err = b.WaitText(60*time.Second, "Receiving 2 of 2")
	mustDo(t, err)
	mustDo(t, b.Reload())
	_, err = b.WaitText(30*time.Second, "did not arrive")
	mustDo(t, err)
	mustDo(t, b.Click("#receive"))
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	mustDo(t, err)
	if c := send.Exit(20 * time.Second); c != 0 {
		t.Fatalf("send exited %d; stderr:\n%s", c, send.Stderr)
	}
	if s := send.StderrText(); !strings.Contains(s, "the page went away before every file arrived") {
		t.Errorf("ferry did not say the page went away; stderr:\n%s", s)
	}
}
