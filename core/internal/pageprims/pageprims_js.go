//go:build js && wasm

package pageprims

import (
	"os"
	"path/filepath"
	"syscall/js"
	"testing"
)

// Use sets ferryPrims for the rest of t, and removes it when t ends. It
// skips t when the page's libraries were not fetched.
func Use(t testing.TB) {
	t.Helper()
	dir, err := pageDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sodium.js", "blake3.js", "prims.js"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			// As root (CI, which installs npm), make wasm has fetched them:
			// their absence is a failure there, not a reason to test less.
			if os.Geteuid() == 0 {
				t.Fatalf("%s: `make page-prims` fetches the page's libraries (%v)", f, err)
			}
			t.Skipf("%s: `make page-prims` fetches the page's libraries (%v)", f, err)
		}
	}
	req := js.Global().Get("require")
	if req.Type() != js.TypeFunction {
		t.Skip("no require: not running under Node")
	}
	req.Invoke(filepath.Join(dir, "sodium.js")) // sets ferrySodium
	sodium := js.Global().Get("ferrySodium")
	req.Invoke(filepath.Join(dir, "blake3.js")) // sets ferryBLAKE3Wasm
	blake3 := js.Global().Get("ferryBLAKE3Wasm")
	req.Invoke(filepath.Join(dir, "prims.js"))
	p, err := await(js.Global().Call("ferryMakePrims", sodium, blake3))
	if err != nil {
		t.Fatalf("making the page's primitives: %v", err)
	}
	if p.Type() != js.TypeObject {
		t.Fatal("ferryMakePrims made nothing")
	}
	js.Global().Set("ferryPrims", p)
	t.Cleanup(func() { js.Global().Delete("ferryPrims") })
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
