package browser

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// page is a tiny page with a file input that reports what was picked,
// and a link that downloads what the server made.
const page = `<!doctype html><meta name=viewport content="width=device-width">
<input type=file id=f multiple><p id=out>nothing picked</p>
<p id=ctx></p><a id=dl href="/file" download="made.bin">get</a>
<script>
document.getElementById('ctx').textContent = 'secure=' + window.isSecureContext + ' width=' + innerWidth;
document.getElementById('f').onchange = async e => {
  const parts = [];
  for (const f of e.target.files) parts.push(f.name + ':' + (await f.text()));
  document.getElementById('out').textContent = 'picked ' + parts.join(',');
};
</script>`

func serve(t *testing.T, body []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/file" {
			w.Write(body)
			return
		}
		io.WriteString(w, page)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).String()
}

// TestHarness checks the harness itself against a page of its own: a
// phone-sized viewport, picking files, a download landing in the
// download folder, a screenshot, and the LAN name being an insecure
// context where 127.0.0.1 is a secure one.
func TestHarness(t *testing.T) {
	b := Start(t)
	body := bytes.Repeat([]byte("ferry"), 100000)
	addr := serve(t, body)
	port := addr[strings.LastIndex(addr, ":"):]

	if err := b.Open("http://" + LANAddr + port + "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitText(5*time.Second, "secure=false width=390"); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(src, []byte("hello"), 0o644)
	if err := b.Upload("#f", src); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitText(5*time.Second, "picked a.txt:hello"); err != nil {
		t.Fatal(err)
	}
	if err := b.Click("#dl"); err != nil {
		t.Fatal(err)
	}
	paths, err := b.WaitDownloads(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(paths[0])
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("download %s: %d bytes, %v; want %d bytes", paths[0], len(got), err, len(body))
	}
	shot := filepath.Join(t.TempDir(), "s.png")
	if err := b.Screenshot(shot); err != nil {
		t.Fatal(err)
	}
	if png, _ := os.ReadFile(shot); !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatal("screenshot is not a PNG")
	}
	if heap, err := b.JSHeap(); err != nil || heap <= 0 {
		t.Fatalf("JS heap %d, %v", heap, err)
	}
	if m, err := b.PeakMemory(); err != nil || m.RendererPeak <= 0 || m.BrowserPeak <= 0 {
		t.Fatalf("peak memory %+v, %v", m, err)
	}

	if err := b.Open("http://127.0.0.1" + port + "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitText(5*time.Second, "secure=true"); err != nil {
		t.Fatal(err)
	}
	// A page that asks for an outside address meets the proxy on
	// loopback, which refuses it (192.0.2.1 is a documentation address).
	if err := b.Eval(`fetch('http://192.0.2.1:81/', {mode: 'no-cors'}).then(() => 1, () => 1)`, nil); err != nil {
		t.Fatal(err)
	}
	if r := b.Refused(); !slices.Contains(r, "192.0.2.1:81") {
		t.Fatalf("the proxy did not refuse the outside address; it refused %q", r)
	}
	if err := b.Open("http://192.0.2.1/"); err == nil {
		t.Fatal("opened a non-loopback URL")
	}
	t.Logf("%s", b.Version())
}
