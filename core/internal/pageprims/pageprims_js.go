//go:build js && wasm

package pageprims

import (
	"os"
	"path/filepath"
	"syscall/js"
	"testing"
)

// Use sets ferryPrims for the rest of t, and removes it when t ends, and
// returns whose cipher it has ("simd" or "libsodium"). It loads what
// `make page-prims` built, as worker.js does: aead.js (libsodium's
// cipher for WebAssembly SIMD, gui/page/simd) or sodium.js (npm
// libsodium's), blake3.js and prims.js. It skips t when they were not
// built; as root (CI, which installs npm and the SIMD build's
// toolchain) it fails instead, and it fails whenever aead.js was built
// and prims.js did not take it (Node has WebAssembly SIMD): a cipher
// that fell back to another is a failure, not a reason to test less.
func Use(t testing.TB) string {
	t.Helper()
	dir, err := pageDir()
	if err != nil {
		t.Fatal(err)
	}
	built := func(f string) bool { _, err := os.Stat(filepath.Join(dir, f)); return err == nil }
	missing := func(f string) {
		t.Helper()
		if os.Geteuid() == 0 {
			t.Fatalf("%s: not built (`make page-prims` builds the page's primitives; tests/install-deps.sh installs what it needs)", f)
		}
		t.Skipf("%s: not built, and not root (as root this fails; `make page-prims` builds the page's primitives)", f)
	}
	simd := built("aead.js")
	if !simd && (os.Geteuid() == 0 || !built("sodium.js")) {
		missing("aead.js")
	}
	for _, f := range []string{"blake3.js", "prims.js"} {
		if !built(f) {
			missing(f)
		}
	}
	req := js.Global().Get("require")
	if req.Type() != js.TypeFunction {
		// make test runs the js tests under Node (go_js_wasm_exec); a
		// browser runner has no require to load the primitives with.
		if os.Geteuid() == 0 {
			t.Fatal("no require: the page's primitives are tested under Node, and this is not Node")
		}
		t.Skip("no require: not running under Node, and not root (as root this fails)")
	}
	libs := js.Global().Get("Object").New()
	if simd {
		req.Invoke(filepath.Join(dir, "aead.js")) // sets ferryAEADWasm and ferryAEADKnown
		aead := js.Global().Get("Object").New()
		aead.Set("wasm", js.Global().Get("ferryAEADWasm"))
		aead.Set("known", js.Global().Get("ferryAEADKnown"))
		libs.Set("aead", aead)
	} else {
		req.Invoke(filepath.Join(dir, "sodium.js")) // sets ferrySodium
		libs.Set("sodium", js.Global().Get("ferrySodium"))
	}
	req.Invoke(filepath.Join(dir, "blake3.js")) // sets ferryBLAKE3Wasm
	libs.Set("blake3", js.Global().Get("ferryBLAKE3Wasm"))
	req.Invoke(filepath.Join(dir, "prims.js"))
	p, err := await(js.Global().Call("ferryMakePrims", libs))
	if err != nil {
		t.Fatalf("making the page's primitives: %v", err)
	}
	if p.Type() != js.TypeObject {
		t.Fatal("ferryMakePrims made nothing")
	}
	cipher := p.Get("cipher").String()
	if want := map[bool]string{true: "simd", false: "libsodium"}[simd]; cipher != want {
		t.Fatalf("the page's primitives seal with %q, not %q: prims.js refused the build's cipher", cipher, want)
	}
	js.Global().Set("ferryPrims", p)
	t.Cleanup(func() { js.Global().Delete("ferryPrims") })
	return cipher
}

// pageDir finds gui/page from the test's folder, somewhere under the
// module's root.
func pageDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "gui", "page"), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", os.ErrNotExist
		}
		dir = up
	}
}

type jsError struct{ v js.Value }

func (e jsError) Error() string { return e.v.Call("toString").String() }

func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	ok := js.FuncOf(func(_ js.Value, a []js.Value) any { done <- result{v: a[0]}; return nil })
	fail := js.FuncOf(func(_ js.Value, a []js.Value) any { done <- result{err: jsError{a[0]}}; return nil })
	defer ok.Release()
	defer fail.Release()
	p.Call("then", ok, fail)
	r := <-done
	return r.v, r.err
}
