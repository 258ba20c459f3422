package platform

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateRoundTrip: a file MakePrivate made passes CheckPrivate, on
// every OS, through the real file system.
func TestPrivateRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := CheckPrivate(f, path); err != nil {
		t.Errorf("after MakePrivate: %v", err)
	}
}

// TestOpenFileRefused: a file others can read is refused with a
// *NotPrivateError that names the file and this OS's fix. openToOthers
// (per OS) opens the file up the way a person might by mistake.
func TestOpenFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(path); err != nil {
		t.Fatal(err)
	}
	openToOthers(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = CheckPrivate(f, path)
	var np *NotPrivateError
	if !errors.As(err, &np) {
		t.Fatalf("CheckPrivate = %v, want a *NotPrivateError", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fixWord) {
		t.Errorf("error %q names neither the file nor %q", err, fixWord)
	}
}

// TestReplaceFile: the new contents replace the old under the old name,
// and the temporary name is gone.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	to, from := filepath.Join(dir, "data"), filepath.Join(dir, ".data-tmp")
	if err := os.WriteFile(to, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(from, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "new" {
		t.Errorf("after ReplaceFile: %q, %v", b, err)
	}
	if _, err := os.Stat(from); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file still there: %v", err)
	}
	if err := ReplaceFile(from, to); err == nil {
		t.Error("ReplaceFile of a missing file succeeded")
	}
}

// TestSocketErrors: real sockets' errors, as this OS reports them, are
// recognised: a port that is taken, a port nobody listens on.
func TestSocketErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_, err = net.Listen("tcp", addr)
	if err == nil || !IsAddrInUse(err) {
		t.Errorf("second listen on %s: %v (%#v), IsAddrInUse false", addr, err, errors.Unwrap(err))
	}
	if IsUnreachable(err) || IsNoSpace(err) {
		t.Errorf("a busy port is not unreachable nor no space: %v", err)
	}
	l.Close()
	_, err = net.Dial("tcp", addr)
	if err == nil || !IsUnreachable(err) {
		t.Errorf("dial to closed %s: %v, IsUnreachable false", addr, err)
	}
	if IsAddrInUse(err) {
		t.Errorf("a refused dial is not a busy port: %v", err)
	}
}

// TestNoSpace: this OS's full-disk codes, inside the errors os returns.
func TestNoSpace(t *testing.T) {
	for _, errno := range noSpaceErrnos {
		err := &os.PathError{Op: "write", Path: "f", Err: errno}
		if !IsNoSpace(err) {
			t.Errorf("IsNoSpace(%v) = false", err)
		}
	}
	if IsNoSpace(os.ErrNotExist) || IsNoSpace(errors.New("no space")) {
		t.Error("IsNoSpace matches what is not a full disk")
	}
}

// TestNoSpaceOnFullDisk: writing past the end of a small file system
// fails with an error that IsNoSpace recognises, as this OS reports it.
// The file system is FERRY_SMALL_FS: tests/wine_test.go mounts a tmpfs
// there (as root) and runs this test as a Windows binary under Wine.
func TestNoSpaceOnFullDisk(t *testing.T) {
	dir := os.Getenv("FERRY_SMALL_FS")
	if dir == "" {
		t.Skip("needs FERRY_SMALL_FS, a small file system that only root can mount (tests/wine_test.go sets it under Wine)")
	}
	f, err := os.CreateTemp(dir, "fill-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 64<<10)
	for written := 0; err == nil; written += len(buf) {
		if written > 1<<30 {
			t.Fatalf("no error after writing %d bytes to %s: not a small file system", written, dir)
		}
		_, err = f.Write(buf)
	}
	if !IsNoSpace(err) {
		t.Errorf("writing to a full %s: %v (%#v), IsNoSpace false", dir, err, errors.Unwrap(err))
	}
}
