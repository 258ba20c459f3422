//go:build unix || windows

package secure

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestIdentityStoredOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "ferry")
	a, err := LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, keyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	b, err := LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatal("second load made a new identity")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("config dir holds %d files, want only the key", len(entries))
	}
}

func TestIdentityRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadOrCreateIdentity(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, keyFile)
	os.Chmod(path, 0o644)
	if _, err := LoadOrCreateIdentity(dir); err == nil || !strings.Contains(err.Error(), "open to others (mode -rw-r--r--): run chmod 600") {
		t.Fatalf("world-readable key: got %v", err)
	}
	os.Chmod(path, 0o600)
	b, _ := os.ReadFile(path)
	b[40] ^= 1
	os.WriteFile(path, b, 0o600)
	if _, err := LoadOrCreateIdentity(dir); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("damaged key: got %v", err)
	}
	os.WriteFile(path, b[:10], 0o600)
	if _, err := LoadOrCreateIdentity(dir); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("short key: got %v", err)
	}
}

// A key kept outside a key file (the page's, in its origin's storage)
// is the same identity as the file's; any length but 32 is refused.
func TestIdentityFromPrivate(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, keyFile))
	if err != nil {
		t.Fatal(err)
	}
	c, err := IdentityFromPrivate(b[:32])
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Public()) != string(a.Public()) {
		t.Fatal("the same private key gave another public key")
	}
	for _, n := range []int{0, 31, 33, 64} {
		if _, err := IdentityFromPrivate(make([]byte, n)); err == nil {
			t.Errorf("a private key of %d bytes was taken", n)
		}
	}
}

func TestFingerprintShape(t *testing.T) {
	a, b := ids(t)
	re := regexp.MustCompile(`^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$`)
	if !re.MatchString(a.Fingerprint()) {
		t.Fatalf("fingerprint %q has the wrong shape", a.Fingerprint())
	}
	if a.Fingerprint() == b.Fingerprint() {
		t.Fatal("two keys share a fingerprint")
	}
	if Fingerprint(a.Public()) != a.Fingerprint() {
		t.Fatal("Fingerprint(pub) differs from Identity.Fingerprint")
	}
}
