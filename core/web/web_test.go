package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
)

const testToken = "0123456789abcdef0123456789abcdef"

// pageFiles stands in for the embedded page in tests that check the
// server, not the page: ferry.wasm here is filler bytes (the Node test
// serves the real one).
func pageFiles() fstest.MapFS {
	return fstest.MapFS{
		"index.html":   {Data: []byte(`<meta name="ferry-token" content="{{TOKEN}}"><meta name="ferry-name" content="{{NAME}}"><meta name="ferry-mode" content="{{MODE}}"><meta name="ferry-wasm" content="{{SRI_WASM}}"><meta name="ferry-worker" content="{{SRI_WORKER}}"><script src="core.js" integrity="{{SRI_CORE}}"></script>`)},
		"core.js":      {Data: []byte("// core")},
		"worker.js":    {Data: []byte("// worker")},
		"page.js":      {Data: []byte("// page")},
		"page.css":     {Data: []byte("/* css */")},
		"ferry.wasm":   {Data: bytes.Repeat([]byte("\x00asm filler "), 10000)},
		"wasm_exec.js": {Data: []byte("// exec")},
	}
}

// startMux serves cfg's page on a loopback port and returns the Mux and
// its address.
func startMux(t *testing.T, cfg Config) (*Mux, string) {
	t.Helper()
	if cfg.Files == nil {
		cfg.Files = pageFiles()
	}
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMux(ln, srv)
	t.Cleanup(func() { m.Close() })
	return m, ln.Addr().String()
}

func get(t *testing.T, addr, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func upgradeHeaders(origin string) map[string]string {
	h := map[string]string{
		"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
	}
	if origin != "" {
		h["Origin"] = origin
	}
	return h
}

func TestUpgradeRefused(t *testing.T) {
	_, addr := startMux(t, Config{Name: "desk"})
	self := "http://" + addr
	_, port, _ := net.SplitHostPort(addr)
	tests := []struct {
		name   string
		path   string
		origin string
		host   string
		want   int
	}{
		{"foreign origin", "/ws?t=" + testToken, "http://evil.example", "", http.StatusForbidden},
		{"foreign origin, same host other port", "/ws?t=" + testToken, "http://127.0.0.1:1", "", http.StatusForbidden},
		{"no origin", "/ws?t=" + testToken, "", "", http.StatusForbidden},
		{"no token", "/ws", self, "", http.StatusForbidden},
		{"wrong token", "/ws?t=" + strings.Repeat("0", len(testToken)), self, "", http.StatusForbidden},
		{"short token", "/ws?t=" + testToken[:8], self, "", http.StatusForbidden},
		{"rebound name", "/ws?t=" + testToken, "http://evil.example:" + port, "evil.example:" + port, http.StatusMisdirectedRequest},
		{"page by a rebound name", "/", "", "evil.example:" + port, http.StatusMisdirectedRequest},
		{"right origin and token", "/ws?t=" + testToken, self, "", http.StatusSwitchingProtocols},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := upgradeHeaders(tt.origin)
			if tt.path == "/" {
				h = map[string]string{}
			}
			if tt.host != "" {
				h["Host"] = tt.host
			}
			resp := get(t, addr, tt.path, h)
			if resp.StatusCode != tt.want {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tt.want)
			}
		})
	}
}

func TestPageServed(t *testing.T) {
	m, addr := startMux(t, Config{Name: `Ann's <laptop>`})
	resp := get(t, addr, "/", nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}
	for _, want := range []string{testToken, "Ann&#39;s &lt;laptop&gt;", `content="send"`, `content="sha256-`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("page lacks %q: %s", want, body)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self' ws://"+addr) ||
		!strings.Contains(csp, "worker-src 'self' blob:;") {
		t.Errorf("CSP %q", csp)
	}
	// The index pins the worker's scripts: core.js starts the worker
	// from a blob of the scripts it fetched with these hashes.
	for _, name := range []string{"core.js", "worker.js"} {
		sum := sha256.Sum256(pageFiles()[name].Data)
		if want := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); !bytes.Contains(body, []byte(want)) {
			t.Errorf("page lacks %s's hash %s: %s", name, want, body)
		}
		if r := get(t, addr, "/"+name, nil); r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("GET /%s: %d %q", name, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
	if m.Server().PageHash == "" || m.Server().WasmHash == "" || !m.Server().HasWasm {
		t.Errorf("hashes not set: %+v", m.Server())
	}

	// Gzipped when asked for, identical once unzipped.
	want := pageFiles()["ferry.wasm"].Data
	resp = get(t, addr, "/ferry.wasm", map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "application/wasm" {
		t.Fatalf("wasm headers: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("gunzipped wasm differs (%d bytes, %v)", len(got), err)
	}
	resp = get(t, addr, "/ferry.wasm", map[string]string{"Accept-Encoding": "identity"})
	got, _ = io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(got, want) {
		t.Fatal("plain wasm differs")
	}

	for path, code := range map[string]int{"/nope": 404, "/page.go": 404, "/../index.html": 404, "/index.html": 200} {
		if resp := get(t, addr, path, nil); resp.StatusCode != code {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, code)
		}
	}
	resp, err = http.Post("http://"+addr+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	// Headers are bounded.
	resp = get(t, addr, "/", map[string]string{"X-Big": strings.Repeat("a", 64<<10)})
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB header: %d", resp.StatusCode)
	}
}

// TestPageCaching holds what a reload costs: the index (it holds the
// token) is never kept; every other file is kept but asked about at
// each use, by a tag of its bytes (another for its gzipped bytes), and
// a request naming the tag it has gets a 304 without the body.
func TestPageCaching(t *testing.T) {
	_, addr := startMux(t, Config{Name: "x"})
	for _, path := range []string{"/", "/index.html"} {
		resp := get(t, addr, path, nil)
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" || resp.Header.Get("ETag") != "" {
			t.Errorf("GET %s: Cache-Control %q, ETag %q", path, cc, resp.Header.Get("ETag"))
		}
		if resp := get(t, addr, path, map[string]string{"If-None-Match": "*"}); resp.StatusCode != 200 {
			t.Errorf("GET %s with If-None-Match: %d", path, resp.StatusCode)
		}
	}
	for _, name := range []string{"ferry.wasm", "page.js", "core.js", "worker.js"} {
		tags := map[string]bool{}
		for _, enc := range []string{"gzip", "identity"} {
			resp := get(t, addr, "/"+name, map[string]string{"Accept-Encoding": enc})
			tag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" || len(tag) < 10 || tag[0] != '"' {
				t.Fatalf("GET /%s (%s): %d, Cache-Control %q, ETag %q", name, enc, resp.StatusCode, resp.Header.Get("Cache-Control"), tag)
			}
			tags[tag] = true
			for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
				r := get(t, addr, "/"+name, map[string]string{"Accept-Encoding": enc, "If-None-Match": inm})
				b, _ := io.ReadAll(r.Body)
				if r.StatusCode != http.StatusNotModified || len(b) != 0 || r.Header.Get("ETag") != tag {
					t.Errorf("GET /%s (%s) If-None-Match %s: %d, %d bytes, ETag %q", name, enc, inm, r.StatusCode, len(b), r.Header.Get("ETag"))
				}
			}
			if r := get(t, addr, "/"+name, map[string]string{"Accept-Encoding": enc, "If-None-Match": `"other"`}); r.StatusCode != 200 {
				t.Errorf("GET /%s (%s) with another tag: %d", name, enc, r.StatusCode)
			}
		}
		if len(tags) != 2 {
			t.Errorf("/%s: gzipped and plain share a tag: %v", name, tags)
		}
	}
}

// TestPrecompressedWasm: the build's ferry.wasm.gz is what goes out
// gzipped, byte for byte, when it unzips to ferry.wasm; one from another
// build is not (the Server gzips ferry.wasm itself); and it is never
// served under its own name.
func TestPrecompressedWasm(t *testing.T) {
	wasm := pageFiles()["ferry.wasm"].Data
	gz := func(b []byte, level int) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, level)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	// BestSpeed, so that its bytes differ from what the Server makes.
	good := gz(wasm, gzip.BestSpeed)
	stale := gz(append([]byte("older "), wasm...), gzip.BestSpeed)
	for _, c := range []struct {
		name string
		pre  []byte
		want []byte // the served bytes, or nil: any gzip of wasm but pre
	}{
		{"matching", good, good}, {"stale", stale, nil}, {"not gzip", []byte("not gzip"), nil},
		{"shorter", gz(wasm[:len(wasm)-1], gzip.BestSpeed), nil}, {"longer", gz(append(wasm[:len(wasm):len(wasm)], 'x'), gzip.BestSpeed), nil},
		{"truncated", good[:len(good)-4], nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := pageFiles()
			files["ferry.wasm.gz"] = &fstest.MapFile{Data: c.pre}
			m, addr := startMux(t, Config{Name: "x", Files: files})
			srv := m.Server()
			resp := get(t, addr, "/ferry.wasm", map[string]string{"Accept-Encoding": "gzip"})
			body, _ := io.ReadAll(resp.Body)
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("not gzipped: %v", resp.Header)
			}
			if c.want != nil {
				if !bytes.Equal(body, c.want) {
					t.Fatalf("served %d bytes, not the build's %d", len(body), len(c.want))
				}
			} else {
				if bytes.Equal(body, c.pre) {
					t.Fatal("served the stale ferry.wasm.gz")
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, wasm) {
					t.Fatalf("served gzip is not ferry.wasm (%d bytes, %v)", len(got), err)
				}
			}
			if srv.GzipSize() != len(body) {
				t.Errorf("GzipSize %d, served %d", srv.GzipSize(), len(body))
			}
			if r := get(t, addr, "/ferry.wasm.gz", nil); r.StatusCode != 404 {
				t.Errorf("GET /ferry.wasm.gz: %d", r.StatusCode)
			}
		})
	}
}

func TestBuiltWithoutWasm(t *testing.T) {
	files := pageFiles()
	delete(files, "ferry.wasm")
	m, addr := startMux(t, Config{Files: files})
	body, _ := io.ReadAll(get(t, addr, "/", nil).Body)
	if !bytes.Contains(body, []byte("built without the browser page")) || m.Server().HasWasm {
		t.Fatalf("page without wasm: %s", body)
	}
	if resp := get(t, addr, "/ferry.wasm", nil); resp.StatusCode != 404 {
		t.Fatalf("wasm: %d", resp.StatusCode)
	}
}

// tree writes a few files, one spanning several chunks and WebSocket
// messages, into a new folder and returns its parent and name.
func tree(t *testing.T) (string, string) {
	t.Helper()
	parent := t.TempDir()
	big := make([]byte, 3<<20+123)
	rand.Read(big)
	testkit.WriteTree(t, filepath.Join(parent, "tree"), 0o644, map[string]string{"a.txt": "hello\n", "sub/big.bin": string(big), "sub/deeper/empty": ""})
	return parent, "tree"
}

// sameTree fails unless every file under a is under b with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	if testkit.SameTree(t, a, b, testkit.Compare{Subset: true}) == 0 {
		t.Fatal("no files compared")
	}
}

// receiver runs a Receiver on m until one transfer ends.
func receiver(t *testing.T, m *Mux, code string) (string, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dir, Code: code, Listener: m, Identity: testid.New(t),
		Name: "desk", Policy: receive.AcceptAll, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	over := make(chan struct{})
	go func() {
		defer close(over)
		_, err := r.Serve(context.Background())
		done <- err
	}()
	t.Cleanup(func() { r.Close(); <-over })
	return dir, done
}

// wsDialer opens the page's WebSocket as the page would.
func wsDialer(addr, origin string) func(ctx context.Context, _ string) (net.Conn, error) {
	return func(ctx context.Context, _ string) (net.Conn, error) {
		c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws?t="+testToken,
			&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		if err != nil {
			return nil, err
		}
		return websocket.NetConn(context.Background(), c, websocket.MessageBinary), nil
	}
}

func sendTo(t *testing.T, addr, code string, items []transfer.Item, dial func(context.Context, string) (net.Conn, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := send.Send(ctx, send.SendConfig{Addrs: []string{addr}, Code: code, Identity: testid.New(t), Name: "sender",
		Items: items, Dialer: dial, Timeout: 10 * time.Second})
	return err
}

// A Go sender (not wasm) over the WebSocket, through the real HTTP
// server and the receiver's ordinary accept loop.
func TestWebSocketCarriesTransfer(t *testing.T) {
	m, addr := startMux(t, Config{Name: "desk"})
	dest, done := receiver(t, m, "246810")
	parent, name := tree(t)

	err := sendTo(t, addr, "111111", []transfer.Item{{Path: filepath.Join(parent, name)}}, wsDialer(addr, "http://"+addr))
	if !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("wrong code over the WebSocket: %v, want ErrWrongCode", err)
	}
	if err := sendTo(t, addr, "246810", []transfer.Item{{Path: filepath.Join(parent, name)}}, wsDialer(addr, "http://"+addr)); err != nil {
		t.Fatalf("send over the WebSocket: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("receiver: %v", err)
	}
	sameTree(t, filepath.Join(parent, name), filepath.Join(dest, name))
}

// Ferry senders on the shared port are not disturbed by the page: the
// page loads while a TCP sender sends, on the same port.
func TestFerrySendersShareThePort(t *testing.T) {
	m, addr := startMux(t, Config{Name: "desk"})
	dest, done := receiver(t, m, "135790")
	parent, name := tree(t)
	if resp := get(t, addr, "/", nil); resp.StatusCode != 200 {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	if err := sendTo(t, addr, "135790", []transfer.Item{{Path: filepath.Join(parent, name)}}, nil); err != nil {
		t.Fatalf("TCP send through the shared port: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("receiver: %v", err)
	}
	sameTree(t, filepath.Join(parent, name), filepath.Join(dest, name))
	if resp := get(t, addr, "/page.css", nil); resp.StatusCode != 200 {
		t.Fatalf("page after the transfer: %d", resp.StatusCode)
	}
}

// Connections that never say anything are bounded: past maxPending the
// oldest is closed, and the page and Ferry still get through.
func TestStalledConnectionsBounded(t *testing.T) {
	m, addr := startMux(t, Config{Name: "desk"})
	var stalled []net.Conn
	for i := 0; i < maxPending+1; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		stalled = append(stalled, c)
	}
	stalled[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := stalled[0].Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("oldest stalled connection still open: %v", err)
	}
	if resp := get(t, addr, "/", nil); resp.StatusCode != 200 {
		t.Fatalf("page with stalled connections: %d", resp.StatusCode)
	}
	dest, done := receiver(t, m, "112233")
	parent, name := tree(t)
	if err := sendTo(t, addr, "112233", []transfer.Item{{Path: filepath.Join(parent, name)}}, nil); err != nil {
		t.Fatalf("send with stalled connections: %v", err)
	}
	<-done
	sameTree(t, filepath.Join(parent, name), filepath.Join(dest, name))
}

// In ToBrowser mode only the page may connect: a Ferry sender's TCP
// connection is closed without reaching Accept.
func TestToBrowserRefusesFerryTCP(t *testing.T) {
	m, addr := startMux(t, Config{ToBrowser: true})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("FERRY\x02\x02"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Ferry connection not closed: %v", err)
	}
	m.SetDeadline(time.Now().Add(100 * time.Millisecond))
	if nc, err := m.Accept(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Accept: %v, %v; want the deadline", nc, err)
	}
}
