package browser

import (
	"io/fs"
	"net"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/web"
	ferrypage "github.com/ferry-project/ferry/gui/page"
)

// TestPageUsesPrims: a page built with libsodium's and blake3-wasm's
// builds (make wasm fetches them) loads them in its worker, under the
// page's CSP and their integrity hashes, and ferry.wasm seals and hashes
// with them (Chromium has WebAssembly SIMD, which blake3-wasm's needs);
// one built without them says it does not. That the bytes
// they make are right is the business of the page tests that send and
// receive against this process's x/crypto and BLAKE3, and of
// core/secure's and core/filehash's WebAssembly tests.
func TestPageUsesPrims(t *testing.T) {
	_, err := fs.Stat(ferrypage.Files, "sodium.js")
	built := err == nil
	b := Start(t)
	mux, id := pageServer(t, false)
	must(t, b.Open(web.Link(LANAddr, mux.Addr().(*net.TCPAddr).Port, "246810", id.Fingerprint())))
	// The primitives come ready a little after the bridge, or never
	// when the page has none: wait for ready, then for them as long as
	// they may take.
	var on bool
	must(t, b.EvalFor(30*time.Second, `new Promise(r => { const f = () => window.ferry && window.ferry.ready ? r(true) : setTimeout(f, 50); f(); })`, nil))
	must(t, b.EvalFor(30*time.Second, `new Promise(r => { const t0 = Date.now(); const f = () => window.ferry.prims || Date.now() - t0 > 10000 ? r(window.ferry.prims) : setTimeout(f, 50); f(); })`, &on))
	if on != built {
		t.Fatalf("the page's worker uses the fast primitives: %v; the page was built with them: %v", on, built)
	}
	var hash bool
	must(t, b.Eval(`window.ferry.primsHash`, &hash))
	if hash != built {
		t.Fatalf("the page's worker hashes with blake3-wasm: %v; the page was built with it: %v", hash, built)
	}
}
