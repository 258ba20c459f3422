package web

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// Config is what a Server needs.
type Config struct {
	// Name is this device's name, shown on the page before it connects
	// (the handshake then proves who answers; see the package doc).
	Name string
	// ToBrowser: this end sends and the page receives (ferry send
	// --to-browser). The Mux then refuses Ferry TCP connections: only
	// the page may connect.
	ToBrowser bool
	// Files are the page's files; nil means the embedded ones
	// (core/web/page). Tests pass their own.
	Files fs.FS
	// Token is the per-run secret the page carries into its WebSocket
	// upgrade; empty picks 16 random bytes.
	Token string
}

// Server serves the page and checks WebSocket upgrades. It holds every
// file in memory, as embedded, plus a gzipped copy of each (about 2 MiB
// for ferry.wasm, made when the Server starts; the others on first
// request).
type Server struct {
	cfg    Config
	token  string
	assets map[string]*asset
	index  *asset
	// PageHash and WasmHash are the SHA-256 (hex) of index.html as
	// served (token included) and of ferry.wasm: a person can compare
	// them with what a download on the phone gives (see SECURITY.md).
	PageHash, WasmHash string
	// HasWasm says whether this binary was built with ferry.wasm.
	HasWasm bool
}

type asset struct {
	body  []byte
	ctype string
	etag  string // quoted, of body; "" for the index, which is never cached
	pre   []byte // body gzipped by the build, if it was; checked before use
	once  sync.Once
	gz    []byte
}

// served names and their types; nothing else is served.
var types = map[string]string{
	"page.js":      "text/javascript; charset=utf-8",
	"page.css":     "text/css; charset=utf-8",
	"ferry.wasm":   "application/wasm",
	"wasm_exec.js": "text/javascript; charset=utf-8",
	"save.js":      "text/javascript; charset=utf-8",
	"sw.js":        "text/javascript; charset=utf-8",
	"core.js":      "text/javascript; charset=utf-8",
	"worker.js":    "text/javascript; charset=utf-8",
	"aead.js":      "text/javascript; charset=utf-8",
	"sodium.js":    "text/javascript; charset=utf-8",
	"blake3.js":    "text/javascript; charset=utf-8",
	"prims.js":     "text/javascript; charset=utf-8",
}

// optional are the names a page may lack: the wasm's build outputs, and
// files a test's own page leaves out.
var optional = map[string]bool{"ferry.wasm": true, "wasm_exec.js": true, "save.js": true, "sw.js": true,
	"core.js": true, "worker.js": true, "aead.js": true, "sodium.js": true, "blake3.js": true, "prims.js": true}

// NewServer reads the page's files and fills in the index's
// placeholders: the token, the device name, the mode, and the
// Subresource Integrity hashes of the script, the style and the wasm,
// so that the index's hash covers everything the page runs.
func NewServer(cfg Config) (*Server, error) {
	files := cfg.Files
	if files == nil {
		return nil, errors.New("serving the browser page: no page files")
	}
	token := cfg.Token
	if token == "" {
		var b [16]byte
		rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	s := &Server{cfg: cfg, token: token, assets: map[string]*asset{}}
	for name, ctype := range types {
		b, err := fs.ReadFile(files, name)
		if errors.Is(err, fs.ErrNotExist) && optional[name] {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the page's %s: %w", name, err)
		}
		sum := sha256.Sum256(b)
		s.assets[name] = &asset{body: b, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	}
	s.HasWasm = s.assets["ferry.wasm"] != nil && s.assets["wasm_exec.js"] != nil
	index := fill([]byte(noWasmPage), map[string]string{"{{TOKEN}}": token})
	if s.HasWasm {
		b, err := fs.ReadFile(files, "index.html")
		if err != nil {
			return nil, fmt.Errorf("reading the page's index.html: %w", err)
		}
		mode := "send"
		if cfg.ToBrowser {
			mode = "receive"
		}
		index = fill(b, map[string]string{
			"{{TOKEN}}":      token,
			"{{NAME}}":       html.EscapeString(cfg.Name),
			"{{MODE}}":       mode,
			"{{SRI_JS}}":     sri(s.assets["page.js"].body),
			"{{SRI_SAVE}}":   sriOf(s.assets["save.js"]),
			"{{SRI_CSS}}":    sri(s.assets["page.css"].body),
			"{{SRI_WASM}}":   sri(s.assets["ferry.wasm"].body),
			"{{SRI_EXEC}}":   sri(s.assets["wasm_exec.js"].body),
			"{{SRI_CORE}}":   sriOf(s.assets["core.js"]),
			"{{SRI_WORKER}}": sriOf(s.assets["worker.js"]),
			"{{SRI_AEAD}}":   sriOf(s.assets["aead.js"]),
			"{{SRI_SODIUM}}": sriOf(s.assets["sodium.js"]),
			"{{SRI_BLAKE3}}": sriOf(s.assets["blake3.js"]),
			"{{SRI_PRIMS}}":  sriOf(s.assets["prims.js"]),
		})
		sum := sha256.Sum256(s.assets["ferry.wasm"].body)
		s.WasmHash = hex.EncodeToString(sum[:])
		// make wasm gzips ferry.wasm too (ferry.wasm.gz): gzipping it
		// here takes a second of one core, several on a busy machine,
		// and a page that asked for it sooner waited (measured:
		// benches/results/2026-12-05-wasm-gzip-at-build.md). Without
		// it (a build by other means), or when it is not ferry.wasm's,
		// it is gzipped here, on a goroutine of its own, so that the
		// link is printed at once.
		if pre, err := fs.ReadFile(files, "ferry.wasm.gz"); err == nil {
			s.assets["ferry.wasm"].pre = pre
		}
		go s.assets["ferry.wasm"].gzipped()
	}
	s.index = &asset{body: index, ctype: "text/html; charset=utf-8"}
	sum := sha256.Sum256(index)
	s.PageHash = hex.EncodeToString(sum[:])
	return s, nil
}

// noWasmPage is served by a binary built without ferry.wasm (a plain
// `go build`, not `make`).
const noWasmPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="ferry-token" content="{{TOKEN}}">
<title>Ferry</title></head><body>
<h1>Ferry</h1>
<p>This copy of ferry was built without the browser page: its ferry.wasm is missing.
Build ferry with <code>make ferry</code> (which builds the page first), or send with the ferry app instead.</p>
</body></html>
`

func fill(b []byte, vals map[string]string) []byte {
	for k, v := range vals {
		b = bytes.ReplaceAll(b, []byte(k), []byte(v))
	}
	return b
}

func sri(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// sriOf is a's integrity hash, or "" for a file this page lacks (a
// test's own files).
func sriOf(a *asset) string {
	if a == nil {
		return ""
	}
	return sri(a.body)
}

// Token is the per-run secret of the page (see the package doc).
func (s *Server) Token() string { return s.token }

// ServeHTTP serves the page's files to GET and HEAD, and upgrades
// /ws?t=TOKEN to a WebSocket through up. Every request must name this
// device by an IP address or localhost in its Host (see the package
// doc: DNS rebinding).
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request, up func(http.ResponseWriter, *http.Request)) {
	if !localHost(r.Host) {
		http.Error(w, "ferry: open the link the device printed (http://ADDRESS:PORT/...)", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "ws" {
		if err := s.checkUpgrade(r); err != nil {
			http.Error(w, "ferry: "+err.Error(), http.StatusForbidden)
			return
		}
		up(w, r)
		return
	}
	a := s.assets[name]
	if name == "" || name == "index.html" {
		a = s.index
	}
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "+
		"img-src 'self' data: blob:; connect-src 'self' ws://"+r.Host+"; worker-src 'self' blob:; frame-src 'self'; frame-ancestors 'none'; "+
		"base-uri 'none'; form-action 'none'")
	h.Set("Vary", "Accept-Encoding")
	gz := acceptsGzip(r)
	if a.etag == "" {
		// The index holds the token: never kept.
		h.Set("Cache-Control", "no-store")
	} else {
		// Kept, but asked about at every use: a reload (a phone that
		// locked its screen) costs a 304 instead of ferry.wasm again,
		// and a later ferry at the same address is never given an old
		// file (the index's integrity hashes would refuse it anyway).
		etag := a.etag
		if gz {
			// The gzipped bytes are another representation: their own
			// tag.
			etag = etag[:len(etag)-1] + `-gz"`
		}
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		if ifNoneMatch(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	body := a.body
	if gz {
		body = a.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// ifNoneMatch reports whether an If-None-Match header names etag (or is
// "*"). Weak tags (W/"...") match too: a 304 to a GET only needs the
// weak comparison.
func ifNoneMatch(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

func (a *asset) gzipped() []byte {
	a.once.Do(func() {
		if a.pre != nil && gunzips(a.pre, a.body) {
			a.gz = a.pre
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(a.body)
		zw.Close()
		a.gz = buf.Bytes()
	})
	return a.gz
}

// gunzips reports whether gz is a gzip stream of exactly want: a
// ferry.wasm.gz left from another build of ferry.wasm is not served. It
// compares as it unzips, a block at a time, so that checking costs no
// second copy of the wasm in memory.
func gunzips(gz, want []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return false
	}
	var buf [32 << 10]byte
	for {
		n, err := zr.Read(buf[:])
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false
		}
		want = want[n:]
		if err == io.EOF {
			return len(want) == 0
		}
		if err != nil {
			return false
		}
	}
}

// GzipSize is the size of ferry.wasm as served gzipped (0 without it).
func (s *Server) GzipSize() int {
	if a := s.assets["ferry.wasm"]; a != nil {
		return len(a.gzipped())
	}
	return 0
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// localHost says whether a Host header names this device the way the
// printed link does: an IP address or localhost, with or without a port.
// A name that a foreign DNS server resolves to this device (DNS
// rebinding) is refused, so that a page from another site can never
// read this page, and with it the token, as if it were its own.
func localHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	_, err := netip.ParseAddr(h)
	return err == nil
}

// errUpgrade* are why an upgrade is refused (403, before any WebSocket
// handshake).
var (
	errOrigin = errors.New("the WebSocket must come from this device's own page")
	errToken  = errors.New("the WebSocket needs the page's token: reload the page from the link")
)

// checkUpgrade refuses an upgrade from another origin (a browser always
// sends Origin with a WebSocket; a request without one is not the page)
// and one without the page's token.
func (s *Server) checkUpgrade(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" || !strings.EqualFold(origin, "http://"+r.Host) {
		return errOrigin
	}
	t := r.URL.Query().Get("t")
	if subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) != 1 {
		return errToken
	}
	return nil
}
