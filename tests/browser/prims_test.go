package browser

import (
	"io/fs"
	"net"
	"os"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/web"
	ferrypage "github.com/ferry-project/ferry/gui/page"
)

// TestPageUsesPrims: a page built with its fast primitives (make wasm
// builds them) loads them in its worker, under the page's CSP and their
// integrity hashes, and ferry.wasm seals and hashes with them: the
// ChaCha20-Poly1305 of aead.js (libsodium's built for WebAssembly SIMD,
// which Chromium has) when the build made it, else npm libsodium's
// (sodium.js), and blake3-wasm's BLAKE3; the worker says which
// (ferry.primsCipher, ferry.primsHash). One built without them says it
// does not. As root (CI, which installs the SIMD build's toolchain) a
// page without aead.js fails. That the bytes they make are right is the
// business of the page tests that send and receive against this
// process's x/crypto and BLAKE3, and of core/secure's and
// core/filehash's WebAssembly tests.
func TestPageUsesPrims(t *testing.T) {
	has := func(f string) bool { _, err := fs.Stat(ferrypage.Files, f); return err == nil }
	cipher := ""
	switch {
	case has("aead.js"):
		cipher = "simd"
	case os.Geteuid() == 0:
		t.Fatal("the page was built without aead.js, its SIMD cipher (gui/page/simd/build.sh; tests/install-deps.sh installs its toolchain)")
	case has("sodium.js"):
		cipher = "libsodium"
	}
	hash := has("blake3.js")
	b := Start(t)
	mux, id := pageServer(t, false)
	must(t, b.Open(web.Link(LANAddr, mux.Addr().(*net.TCPAddr).Port, "246810", id.Fingerprint())))
	// The primitives come ready a little after the bridge, or never
	// when the page has none: wait for ready, then for them as long as
	// they may take.
	var on bool
	must(t, b.EvalFor(30*time.Second, `new Promise(r => { const f = () => window.ferry && window.ferry.ready ? r(true) : setTimeout(f, 50); f(); })`, nil))
	must(t, b.EvalFor(30*time.Second, `new Promise(r => { const t0 = Date.now(); const f = () => window.ferry.prims || Date.now() - t0 > 10000 ? r(window.ferry.prims) : setTimeout(f, 50); f(); })`, &on))
	if want := cipher != "" || hash; on != want {
		t.Fatalf("the page's worker uses the fast primitives: %v; the page was built with them: %v", on, want)
	}
	var got string
	must(t, b.Eval(`window.ferry.primsCipher`, &got))
	if got != cipher {
		t.Fatalf("the page's worker seals with %q; the page was built for %q", got, cipher)
	}
	var hashing bool
	must(t, b.Eval(`window.ferry.primsHash`, &hashing))
	if hashing != hash {
		t.Fatalf("the page's worker hashes with blake3-wasm: %v; the page was built with it: %v", hashing, hash)
	}
}
