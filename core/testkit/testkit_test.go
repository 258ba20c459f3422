package testkit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// fakeT records what a helper reports instead of failing the real test,
// so a test can check that a helper does fail.
type fakeT struct {
	testing.TB // nil: a method the helpers do not call panics
	errs       []string
	cleanups   []func()
}

func (f *fakeT) Helper()                   {}
func (f *fakeT) Errorf(s string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(s, a...)) }
func (f *fakeT) Cleanup(fn func())         { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Fatalf(s string, a ...any) { f.Errorf(s, a...); panic("Fatalf") }
func (f *fakeT) Fatal(a ...any)            { f.Errorf("%s", fmt.Sprint(a...)); panic("Fatal") }
func (f *fakeT) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// A goroutine left running is reported, with its stack; one that ends is
// not; one named in ignore is not.
func TestLeakCheckCatchesALeak(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	b := Running()
	startLeaky(stop)
	if left := b.Leaked(50 * time.Millisecond); !strings.Contains(left, "leakyWorker") {
		t.Fatalf("a running goroutine went unreported; got %q", left)
	}
	if left := b.Leaked(50*time.Millisecond, "leakyWorker"); left != "" {
		t.Fatalf("an ignored goroutine was reported:\n%s", left)
	}

	ft := &fakeT{}
	checkGoroutines(ft, 50*time.Millisecond) // CheckGoroutines with a shorter wait
	startLeaky(stop)
	ft.runCleanups()
	if len(ft.errs) != 1 || !strings.Contains(ft.errs[0], "leakyWorker") {
		t.Fatalf("CheckGoroutines reported %q, want the leaked worker", ft.errs)
	}

	done := make(chan struct{})
	b = Running()
	go func() { <-done }()
	close(done)
	if left := b.Leaked(LeakLimit); left != "" {
		t.Fatalf("a goroutine that ended was reported:\n%s", left)
	}
}

// leakyWorker blocks until stop, after saying it runs: a goroutine that
// has not run yet shows only its go statement's wrapper in a stack, not
// this name (the test once failed that way in CI).
//
//go:noinline
func leakyWorker(running, stop chan struct{}) {
	close(running)
	<-stop
}

// startLeaky starts leakyWorker and returns once it runs.
func startLeaky(stop chan struct{}) {
	running := make(chan struct{})
	go leakyWorker(running, stop)
	<-running
}

// WaitGone sees goroutines by what their stack shows, and not the caller.
func TestWaitGone(t *testing.T) {
	stop := make(chan struct{})
	startLeaky(stop)
	if left := WaitGone(20*time.Millisecond, func(g string) bool { return strings.Contains(g, "leakyWorker") }); left == "" {
		t.Fatal("the worker went unreported")
	}
	if left := WaitGone(20*time.Millisecond, func(g string) bool { return strings.Contains(g, "testkit.TestWaitGone(") }); left != "" {
		t.Fatalf("the caller counted itself:\n%s", left)
	}
	close(stop)
	if left := WaitGone(LeakLimit, func(g string) bool { return strings.Contains(g, "leakyWorker") }); left != "" {
		t.Fatalf("an ended worker reported:\n%s", left)
	}
}

func TestSameTree(t *testing.T) {
	files := map[string]string{"a.txt": "alpha", "sub/b.bin": strings.Repeat("\x00\x01", 5000), "empty": "", "sub/empty dir/": ""}
	mk := func() string {
		root := filepath.Join(t.TempDir(), "tree")
		WriteTree(t, root, 0o640, files)
		stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, stamp, stamp) })
		return root
	}
	src := mk()
	if n := SameTree(t, src, mk(), Exact); n != 3 {
		t.Fatalf("compared %d files, want 3", n)
	}
	for _, tc := range []struct {
		name   string
		change func(dst string)
		c      Compare
		want   string
	}{
		{"changed byte", func(dst string) {
			b, _ := os.ReadFile(filepath.Join(dst, "sub/b.bin"))
			b[7777] ^= 1
			os.WriteFile(filepath.Join(dst, "sub/b.bin"), b, 0o640)
		}, Compare{}, "sub/b.bin: content differs"},
		{"missing file", func(dst string) { os.Remove(filepath.Join(dst, "a.txt")) }, Compare{}, "a.txt: missing"},
		{"missing folder", func(dst string) { os.Remove(filepath.Join(dst, "sub/empty dir")) }, Compare{}, "sub/empty dir: missing"},
		{"extra file", func(dst string) { os.WriteFile(filepath.Join(dst, "sub/new"), nil, 0o640) }, Compare{}, "sub/new: in the copy but not"},
		{"file mode", func(dst string) { os.Chmod(filepath.Join(dst, "a.txt"), 0o600) }, Compare{Modes: true}, "a.txt: mode -rw-------, want -rw-r-----"},
		{"folder mode", func(dst string) { os.Chmod(filepath.Join(dst, "sub"), 0o500) }, Compare{Modes: true}, "sub: folder mode"},
		{"file time", func(dst string) {
			os.Chtimes(filepath.Join(dst, "empty"), time.Now(), time.Now())
		}, Compare{FileTimes: true}, "empty: time"},
		{"file for folder", func(dst string) {
			os.RemoveAll(filepath.Join(dst, "sub/empty dir"))
			os.WriteFile(filepath.Join(dst, "sub/empty dir"), nil, 0o640)
		}, Compare{}, "sub/empty dir: a folder on one side"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := mk()
			tc.change(dst)
			ft := &fakeT{}
			SameTree(ft, src, dst, tc.c)
			if len(ft.errs) != 1 || !strings.Contains(ft.errs[0], tc.want) {
				t.Fatalf("got %q, want one report containing %q", ft.errs, tc.want)
			}
		})
	}
	// What a Compare leaves out, it does not report; a partial folder is
	// passed over; Subset allows extras.
	dst := mk()
	os.Chmod(filepath.Join(dst, "a.txt"), 0o600)
	os.Chtimes(filepath.Join(dst, "empty"), time.Now(), time.Now())
	WriteFile(t, filepath.Join(dst, ".ferry-partial", "x"), []byte("half"))
	SameTree(t, src, dst, Compare{})
	if names := FinalNames(t, dst); strings.Join(names, ",") != "a.txt,empty,sub" {
		t.Errorf("final names %q, want a.txt, empty and sub", names)
	}
	WriteFile(t, filepath.Join(dst, "more"), nil)
	SameTree(t, src, dst, Compare{Subset: true})
}

// The proxy delivers the client's bytes with exactly the flipped bit
// changed, and the server's answer unchanged after the client half-closes.
func TestProxyFlipsTheByteItSays(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		c.Write([]byte("thanks"))
		got <- b
	}()
	sent := bytes.Repeat([]byte("0123456789"), 20000)
	f := &FlipByte{At: 123457, Bit: 0x10}
	p := StartProxy(t, ln.Addr().String(), f)
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(sent)
	c.(*net.TCPConn).CloseWrite()
	reply, _ := io.ReadAll(c)
	b := <-got
	if len(b) != len(sent) {
		t.Fatalf("server got %d bytes, want %d", len(b), len(sent))
	}
	for i := range b {
		if want := sent[i] ^ map[bool]byte{true: 0x10}[i == 123457]; b[i] != want {
			t.Fatalf("byte %d: %#x, want %#x", i, b[i], want)
		}
	}
	if !f.Flipped() || string(reply) != "thanks" {
		t.Fatalf("flipped %v, reply %q", f.Flipped(), reply)
	}
}

// FlipRecord changes the middle byte of the first record at or after At,
// past the preamble and the two handshake messages, and says which.
func TestFlipRecord(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("FERRY\x01\x00") // a 7-byte preamble
	frame := func(n int, fill byte) {
		binary.Write(&in, binary.BigEndian, uint16(n))
		in.Write(bytes.Repeat([]byte{fill}, n))
	}
	frame(40, 'h') // handshake message 1
	frame(60, 'h') // handshake message 3
	frame(100, 0)  // record 0 at stream offset 0
	frame(16, 1)   // record 1 at 102: a bare tag, never changed
	frame(200, 2)  // record 2 at 120
	sent := bytes.Clone(in.Bytes())
	f := &FlipRecord{At: 101}
	var out bytes.Buffer
	f.Forward(&out, &in)
	record, offset, ok := f.Flipped()
	if !ok || record != 2 || offset != 120 {
		t.Fatalf("flipped record %d at %d (%v), want record 2 at 120", record, offset, ok)
	}
	at := 7 + (2 + 40) + (2 + 60) + 120 + 2 + 100 // record 2's body, middle
	got := out.Bytes()
	for i := range sent {
		if want := sent[i] ^ map[bool]byte{true: 0x10}[i == at]; got[i] != want {
			t.Fatalf("byte %d: %#x, want %#x", i, got[i], want)
		}
	}
}

func TestSparseFile(t *testing.T) {
	p := SparseFile(t, filepath.Join(t.TempDir(), "a", "big.img"), 1<<30)
	fi, err := os.Stat(p)
	if err != nil || fi.Size() != 1<<30 {
		t.Fatalf("%v, %v", fi, err)
	}
	if used, ok := diskUsage(fi); ok && used > 1<<20 {
		t.Fatalf("a 1 GiB sparse file uses %d bytes of disk", used)
	}
	f, _ := os.Open(p)
	defer f.Close()
	b := make([]byte, 4096)
	if _, err := f.ReadAt(b, 1<<29); err != nil || !bytes.Equal(b, make([]byte, 4096)) {
		t.Fatalf("reading the middle: %v", err)
	}
}
