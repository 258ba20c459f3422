package fanout

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/testkit"
)

// TestMain fails the run if any goroutine started by the tests outlives
// them.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func fanSetup(t *testing.T, size int) (*testkit.CountFS, []byte) {
	dir := t.TempDir()
	data := pattern(size, 7)
	testkit.WriteFile(t, filepath.Join(dir, "f.bin"), data)
	return testkit.NewCountFS(dir), data
}

func views(hub *Hub, under fs.FS, n int) ([]fanView, []*atomic.Int64) {
	vs := make([]fanView, n)
	again := make([]*atomic.Int64, n)
	for i := range vs {
		vs[i] = hub.view(i, 0, under)
		again[i] = &hub.sess[i].again
	}
	return vs, again
}

// readIn reads f to its end in reads of size step.
func readIn(t *testing.T, f fs.File, step int) []byte {
	t.Helper()
	var out bytes.Buffer
	buf := make([]byte, step)
	for {
		n, err := f.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Sessions that read together read the disk once, whatever their read
// sizes and timing, as long as none falls a window behind.
func TestFanoutReadOnceTogether(t *testing.T) {
	const chunk = 4096
	for _, size := range []int{0, 1, chunk - 1, chunk, chunk + 1, 5*chunk + 500} {
		under, data := fanSetup(t, size)
		hub := New(64*chunk, chunk, 4)
		vs, again := views(hub, under, 4)
		files := make([]fs.File, len(vs))
		for i, v := range vs {
			f, err := v.Open("f.bin")
			if err != nil {
				t.Fatal(err)
			}
			files[i] = f
		}
		var wg sync.WaitGroup
		got := make([][]byte, len(files))
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i] = readIn(t, f, []int{1000, chunk, 3 * chunk, 7}[i])
			}()
		}
		wg.Wait()
		for i, f := range files {
			if !bytes.Equal(got[i], data) {
				t.Fatalf("size %d: session %d read %d bytes, not the file's %d", size, i, len(got[i]), len(data))
			}
			if a := again[i].Load(); a != 0 {
				t.Errorf("size %d: session %d read %d bytes again", size, i, a)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if r := under.BytesRead("f.bin"); r != int64(size) {
			t.Errorf("size %d: the disk gave %d bytes, want the file once", size, r)
		}
		if o := under.Opens("f.bin"); o != 1 {
			t.Errorf("size %d: the file was opened %d times, want once", size, o)
		}
		if hub.free != 64 || len(hub.open) != 0 {
			t.Errorf("size %d: after closing, %d chunks free of 64 and %d files open", size, hub.free, len(hub.open))
		}
	}
}

// A session that falls more than the window behind never holds back the
// others: the leader reads the whole file while the laggard reads
// nothing, then the laggard reads the rest on its own, and says so.
func TestFanoutLaggardReadsOnItsOwn(t *testing.T) {
	for _, plain := range []bool{false, true} {
		const chunk = 4096
		under, data := fanSetup(t, 20*chunk+123)
		under.Plain = plain
		hub := New(2*chunk, chunk, 2)
		hub.patience, hub.share = 0, 0 // nobody is waited for
		vs, again := views(hub, under, 2)
		lead, _ := vs[0].Open("f.bin")
		lag, _ := vs[1].Open("f.bin")
		head := make([]byte, chunk/2)
		if _, err := io.ReadFull(lag, head); err != nil {
			t.Fatal(err)
		}
		if got := readIn(t, lead, chunk); !bytes.Equal(got, data) {
			t.Fatal("the leader read other bytes than the file's")
		}
		rest := readIn(t, lag, 1000)
		if !bytes.Equal(append(head, rest...), data) {
			t.Fatal("the laggard read other bytes than the file's")
		}
		if again[0].Load() != 0 {
			t.Errorf("the leader read %d bytes again", again[0].Load())
		}
		// It rejoins the window for the last two chunks the leader left.
		behind := int64(len(data) - chunk/2 - chunk - 123)
		if a := again[1].Load(); a < behind {
			t.Errorf("plain %v: the laggard read %d bytes on its own, want at least the %d it was behind the window", plain, a, behind)
		}
		if r := under.BytesRead("f.bin"); r != int64(len(data))+again[1].Load() {
			t.Errorf("the disk gave %d bytes, want the file once plus the laggard's %d", r, again[1].Load())
		}
		lead.Close()
		lag.Close()
		if hub.free != 2 {
			t.Errorf("%d chunks free after closing, want 2", hub.free)
		}
	}
}

// A file opened again after every session closed it is read again, and
// the session that reads it is told.
func TestFanoutReopenCountsAgain(t *testing.T) {
	under, data := fanSetup(t, 10000)
	hub := New(1<<20, 4096, 2)
	vs, again := views(hub, under, 2)
	f, _ := vs[0].Open("f.bin")
	readIn(t, f, 4096)
	f.Close()
	hub.Close() // drops the parked file, as a need for its chunks would
	g, _ := vs[1].Open("f.bin")
	if got := readIn(t, g, 4096); !bytes.Equal(got, data) {
		t.Fatal("read other bytes than the file's")
	}
	g.Close()
	if again[0].Load() != 0 || again[1].Load() != int64(len(data)) {
		t.Errorf("read again: first %d, second %d; want 0 and %d", again[0].Load(), again[1].Load(), len(data))
	}
}

// Seeking back (a resume whose prefix did not match) reads from the
// window while it still holds the bytes.
func TestFanoutSeekAndReadAt(t *testing.T) {
	under, data := fanSetup(t, 50000)
	hub := New(1<<20, 4096, 1)
	vs, again := views(hub, under, 1)
	f, _ := vs[0].Open("f.bin")
	defer f.Close()
	readIn(t, f, 3000)
	if _, err := f.(io.Seeker).Seek(100, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got := readIn(t, f, 999); !bytes.Equal(got, data[100:]) {
		t.Fatal("read after seeking: other bytes than the file's")
	}
	buf := make([]byte, 10)
	if n, err := f.(io.ReaderAt).ReadAt(buf, 49995); n != 5 || err != io.EOF || !bytes.Equal(buf[:5], data[49995:]) {
		t.Fatalf("ReadAt at the end: %d, %v", n, err)
	}
	if again[0].Load() != 0 || under.BytesRead("f.bin") != int64(len(data)) {
		t.Errorf("read again %d, disk %d: want 0 and the file once", again[0].Load(), under.BytesRead("f.bin"))
	}
}

// A file every session has not opened yet stays parked when the others
// close it, so a session a file behind the others still shares the read;
// a parked file gives its chunks up when an open file needs them.
func TestFanoutParkedForLateSession(t *testing.T) {
	dir := t.TempDir()
	a, b := pattern(10000, 1), pattern(9000, 2)
	testkit.WriteFile(t, filepath.Join(dir, "a"), a)
	testkit.WriteFile(t, filepath.Join(dir, "b"), b)
	under := testkit.NewCountFS(dir)
	hub := New(3*4096, 4096, 2)
	vs, again := views(hub, under, 2)
	f, _ := vs[0].Open("a")
	readIn(t, f, 4096)
	f.Close()
	g, _ := vs[1].Open("a")
	if got := readIn(t, g, 4096); !bytes.Equal(got, a) {
		t.Fatal("the late session read other bytes than the file's")
	}
	g.Close()
	if again[1].Load() != 0 || under.BytesRead("a") != int64(len(a)) {
		t.Errorf("the late session read %d bytes again, the disk gave %d: want 0 and the file once", again[1].Load(), under.BytesRead("a"))
	}
	if len(hub.parked) != 0 || len(hub.open) != 0 {
		t.Errorf("after both sessions closed a: %d parked, %d open", len(hub.parked), len(hub.open))
	}

	// b is parked with all three chunks of the window; c, opened next,
	// takes them back, and b is then read again for the late session.
	testkit.WriteFile(t, filepath.Join(dir, "c"), pattern(3*4096, 3))
	f, _ = vs[0].Open("b")
	readIn(t, f, 4096)
	f.Close()
	if len(hub.parked) != 1 || hub.free != 0 {
		t.Fatalf("b: %d parked, %d chunks free; want 1 and 0", len(hub.parked), hub.free)
	}
	c, _ := vs[0].Open("c")
	readIn(t, c, 4096)
	if len(hub.parked) != 0 {
		t.Errorf("c read while b stayed parked")
	}
	c.Close()
	g, _ = vs[1].Open("b")
	if got := readIn(t, g, 4096); !bytes.Equal(got, b) {
		t.Fatal("read other bytes than b's")
	}
	g.Close()
	if again[1].Load() != int64(len(b)) {
		t.Errorf("b read again for the late session: %d bytes, want %d", again[1].Load(), len(b))
	}
	hub.Close()
	if hub.free != 3 || len(hub.open) != 0 {
		t.Errorf("after close: %d chunks free of 3, %d open", hub.free, len(hub.open))
	}
}

// Sessions reading side by side through a window far smaller than the
// file stay in step: whoever is ahead waits for the other at the window's
// edge, and the file is read from disk once.
func TestFanoutPacesSessionsInStep(t *testing.T) {
	const chunk = 4096
	under, data := fanSetup(t, 40*chunk+77)
	hub := New(2*chunk, chunk, 3)
	vs, again := views(hub, under, 3)
	var wg sync.WaitGroup
	got := make([][]byte, 3)
	for i, v := range vs {
		f, err := v.Open("f.bin")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer f.Close()
			got[i] = readIn(t, f, []int{chunk, 1000, 3 * chunk}[i])
		}()
	}
	wg.Wait()
	for i := range got {
		if !bytes.Equal(got[i], data) {
			t.Fatalf("session %d read other bytes than the file's", i)
		}
		if again[i].Load() != 0 || hub.sess[i].loose.Load() {
			t.Errorf("session %d: %d bytes read again, loose %v", i, again[i].Load(), hub.sess[i].loose.Load())
		}
	}
	if r := under.BytesRead("f.bin"); r != int64(len(data)) {
		t.Errorf("the disk gave %d bytes, want the file once (%d)", r, len(data))
	}
}

// A session that opened the file and then reads nothing holds the other
// back only for its allowance; then it is loose, the other reads on, and
// the stalled one, when it reads after all, reads on its own.
func TestFanoutStalledSessionGoesLoose(t *testing.T) {
	const chunk = 4096
	under, data := fanSetup(t, 10*chunk)
	hub := New(2*chunk, chunk, 2)
	hub.patience, hub.share = 30*time.Millisecond, 0
	vs, again := views(hub, under, 2)
	stalled, _ := vs[1].Open("f.bin")
	lead, _ := vs[0].Open("f.bin")
	if got := readIn(t, lead, chunk); !bytes.Equal(got, data) {
		t.Fatal("the leader read other bytes than the file's")
	}
	lead.Close()
	if !hub.sess[1].loose.Load() || hub.sess[0].loose.Load() {
		t.Errorf("loose: leader %v, stalled %v; want only the stalled one", hub.sess[0].loose.Load(), hub.sess[1].loose.Load())
	}
	if got := readIn(t, stalled, 3000); !bytes.Equal(got, data) {
		t.Fatal("the stalled session read other bytes than the file's")
	}
	stalled.Close()
	if again[1].Load() < int64(len(data)-2*chunk) {
		t.Errorf("the stalled session read %d bytes on its own, want at least the %d behind the window", again[1].Load(), len(data)-2*chunk)
	}
}

// pattern returns n bytes that differ at every offset of a chunk.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}
