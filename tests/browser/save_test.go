package browser

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// servePage serves gui/page's files and testdata/NAME, at /NAME, on
// 127.0.0.1 and returns the port as ":PORT".
func servePage(t *testing.T, name string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("../../gui/page")))
	mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "testdata/"+name)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()[strings.LastIndex(ln.Addr().String(), ":"):]
}

// pattern is testdata/save.html's pattern.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>13)
	}
	return b
}

// TestSaveSink feeds files through save.js's sinks in a real browser and
// compares what landed in the download folder: the "memory" method on a
// LAN name (no secure context, as a phone on http://192.168.x.y), the
// "stream" method through sw.js on 127.0.0.1 (a secure context); the
// memory method also as the page's worker feeds it, each file whole in a
// Blob (deliver) and no writes (gui/page/worker.js). A file
// that fails its check (finish(false)) must not become a download. The
// "folder" method needs a person to answer the folder picker, which no
// headless browser can; it is not tested here.
func TestSaveSink(t *testing.T) {
	port := servePage(t, "save.html")
	files := []struct {
		path string
		size int
		ok   bool
	}{
		{"empty", 0, true},
		{"one byte.bin", 1, true},
		{"sub dir/deep/large ünï.bin", 9<<20 + 5, true},
		{"failed.bin", 300000, false},
		{"last.txt", 65536, true},
	}
	var arg strings.Builder
	arg.WriteString("[")
	for i, f := range files {
		if i > 0 {
			arg.WriteString(",")
		}
		fmt.Fprintf(&arg, "{path:%q,size:%d,ok:%v}", f.path, f.size, f.ok)
	}
	arg.WriteString("]")

	for _, c := range []struct {
		host, offered, method string
		gather                bool // the memory sink fed as the worker feeds it (deliver)
	}{
		{LANAddr, "memory", "memory", false},
		{LANAddr, "memory", "memory", true},
		{"127.0.0.1", "stream", "stream", false},
	} {
		name := c.method
		if c.gather {
			name += "-gathered"
		}
		t.Run(name, func(t *testing.T) {
			b := Start(t)
			if err := b.Open("http://" + c.host + port + "/save.html"); err != nil {
				t.Fatal(err)
			}
			if _, err := b.WaitText(5*time.Second, "method "+c.offered); err != nil {
				t.Fatal(err)
			}
			var res struct {
				Method string
				Names  []string
			}
			if err := b.Eval(fmt.Sprintf("run(%s, 65519, '%s', %v)", arg.String(), c.method, c.gather), &res); err != nil {
				t.Fatal(err)
			}
			if res.Method != c.method {
				t.Fatalf("sink method %q, want %q", res.Method, c.method)
			}
			paths, err := b.WaitDownloads(4, 60*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range paths {
				got[filepath.Base(p)] = p
			}
			for _, f := range files {
				name := filepath.Base(f.path)
				p, ok := got[name]
				if !f.ok {
					if ok {
						t.Errorf("%s failed its check but was downloaded", name)
					}
					continue
				}
				if !ok {
					t.Errorf("%s was not downloaded; downloads: %v", name, sortedKeys(got))
					continue
				}
				b, err := os.ReadFile(p)
				if err != nil || string(b) != string(pattern(f.size)) {
					t.Errorf("%s: %d bytes (%v), want %d bytes of the pattern", name, len(b), err, f.size)
				}
			}
			ents, _ := os.ReadDir(b.Downloads)
			for _, e := range ents {
				if e.Name() == "failed.bin" {
					t.Errorf("failed.bin is in the download folder under its final name")
				}
			}
		})
	}
}

func sortedKeys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// TestSaveMemoryLimit: a browser that keeps Blobs in memory (here
// Chromium claiming to be Firefox on Android, on a LAN address) is told
// the limit, and a file over it is refused at start, before any byte is
// gathered, with a message that names the file and the limit.
func TestSaveMemoryLimit(t *testing.T) {
	port := servePage(t, "save.html")
	b := Start(t)
	if err := b.SetUserAgent("Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0"); err != nil {
		t.Fatal(err)
	}
	if err := b.Open("http://" + LANAddr + port + "/save.html"); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Method, Words string
		Limit         int64
	}
	if err := b.Eval("ferrySave.saveMethod()", &m); err != nil {
		t.Fatal(err)
	}
	if m.Method != "memory" || m.Limit != 512<<20 || !strings.Contains(m.Words, "512 MiB") {
		t.Fatalf("saveMethod() = %+v, want the memory method with its 512 MiB limit said", m)
	}
	var msg string
	if err := b.Eval(`ferrySave.makeSink().start({path: 'film/big.mkv', size: 600 * 1048576}).then(() => 'taken', e => e.message)`, &msg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "film/big.mkv") || !strings.Contains(msg, "512 MiB") {
		t.Fatalf("a 600 MiB file: %q, want a refusal naming it and the limit", msg)
	}
}
