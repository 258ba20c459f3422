//go:build js && wasm

package secure

import (
	"os"
	"strings"
	"testing"
)

// A browser's WebAssembly has no file it can show to be private, so no
// identity is kept in one there: the page keeps its key in memory or in
// its origin's storage. LoadOrCreateIdentity refuses, and leaves no key,
// whole or half written, behind. (identity_test.go runs where files can
// be private.)
func TestIdentityNotStoredInTheBrowser(t *testing.T) {
	dir := t.TempDir()
	id, err := LoadOrCreateIdentity(dir)
	if err == nil || !strings.Contains(err.Error(), "cannot keep a file private") {
		t.Fatalf("LoadOrCreateIdentity = %v, %v; want the platform's refusal", id, err)
	}
	left, _ := os.ReadDir(dir)
	for _, e := range left {
		t.Errorf("left behind: %s", e.Name())
	}
}
