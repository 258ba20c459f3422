package receive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit"
	"github.com/ferry-project/ferry/core/transfer"
)

// dieAfter is a receiver's disk writer that cuts its connection once n
// bytes were written: the receiver dies halfway, as far as the sender
// can tell.
type dieAfter struct {
	w    io.Writer
	left *atomic.Int64
	conn *atomic.Pointer[secure.Conn]
}

func (d dieAfter) Write(p []byte) (int, error) {
	if d.left.Add(-int64(len(p))) < 0 {
		if c := d.conn.Load(); c != nil {
			c.NetConn().Close()
		}
		return 0, errors.New("the test cut this receiver")
	}
	return d.w.Write(p)
}

// manyEvents records SendMany's events per receiver.
type manyEvents struct {
	mu     sync.Mutex
	by     map[int][]event.Event
	active int // handlers running at once: must stay at most 1
	worst  int
}

func (m *manyEvents) on(to int, ev event.Event) {
	m.mu.Lock()
	m.active++
	m.worst = max(m.worst, m.active)
	m.by[to] = append(m.by[to], ev)
	m.active--
	m.mu.Unlock()
}

func countOf[T event.Event](evs []event.Event) int {
	n := 0
	for _, ev := range evs {
		if _, ok := ev.(T); ok {
			n++
		}
	}
	return n
}

// Three receivers over real TCP: the first declines, the second dies
// halfway, the third gets everything. Neither failure stops the third;
// each result and each receiver's events say what happened to it.
func TestSendManyDeclineDieDeliver(t *testing.T) {
	ctx := t.Context()
	src := t.TempDir()
	folder := filepath.Join(src, "album")
	writeFile(t, filepath.Join(folder, "a.bin"), pattern(1<<20+333, 1))
	writeFile(t, filepath.Join(folder, "b.bin"), pattern(300<<10, 2))
	writeFile(t, filepath.Join(folder, "sub", "empty"), nil)
	total := int64(1<<20 + 333 + 300<<10)

	declines := newPair(t, ctx, ReceiverConfig{Policy: DeclineAll})
	var conn atomic.Pointer[secure.Conn]
	left := new(atomic.Int64)
	left.Store(total / 2)
	dies := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{
		Secured:   func(c any) { conn.Store(c.(*secure.Conn)) },
		DiskWrite: func(w io.Writer) io.Writer { return dieAfter{w, left, &conn} },
	}})
	gets := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	pairs := []*pair{declines, dies, gets}

	evs := &manyEvents{by: map[int][]event.Event{}}
	// The files are read through a counting FS: the disk reads they cost.
	under := testkit.NewCountFS(src)
	cfg := send.ManyConfig{Items: []event.Item{{FS: under, Path: "album"}}, OnEvent: evs.on}
	for _, p := range pairs {
		cfg.To = append(cfg.To, p.send)
	}
	res, stats := send.SendMany(ctx, cfg)
	for i, p := range pairs {
		select {
		case <-p.served:
		case <-time.After(20 * time.Second):
			t.Fatalf("receiver %d never ended; results %+v", i, res)
		}
	}

	if len(res) != 3 {
		t.Fatalf("%d results for 3 receivers", len(res))
	}
	if !errors.Is(res[0].Err, transfer.ErrDeclined) {
		t.Errorf("first receiver: %v, want declined", res[0].Err)
	}
	if res[1].Err == nil {
		t.Error("second receiver died halfway, yet its send succeeded")
	}
	if res[2].Err != nil {
		t.Fatalf("third receiver: %v", res[2].Err)
	}
	t.Logf("results: %v / %v / ok; disk read %d of %d bytes", res[0].Err, res[1].Err, stats.DiskRead, total)
	sameTree(t, folder, gets.r.cfg.Dir)
	if res[2].Summary.Bytes != total {
		t.Errorf("third receiver: %d bytes sent, want %d", res[2].Summary.Bytes, total)
	}
	for i, p := range pairs {
		if res[i].Addr != p.send.Addrs[0] {
			t.Errorf("result %d is for %s, want %s", i, res[i].Addr, p.send.Addrs[0])
		}
	}

	// The common case: every byte read from disk once, for all of them.
	if stats.DiskRead != total {
		t.Errorf("the disk gave %d bytes for %d bytes of files: read more than once", stats.DiskRead, total)
	}
	for name, size := range map[string]int64{"album/a.bin": 1<<20 + 333, "album/b.bin": 300 << 10} {
		if r := under.BytesRead(name); r != size {
			t.Errorf("%s: %d bytes read from disk, want its %d once", name, r, size)
		}
	}
	for i, r := range res {
		if r.ReadAgain != 0 {
			t.Errorf("receiver %d: %d bytes read again for it alone", i, r.ReadAgain)
		}
	}

	if evs.worst > 1 {
		t.Errorf("%d event handlers ran at once", evs.worst)
	}
	want := []struct{ accepted, failed, finished int }{{0, 1, 0}, {1, 1, 0}, {1, 0, 1}}
	for i, w := range want {
		e := evs.by[i]
		got := [3]int{countOf[event.Accepted](e), countOf[event.Error](e), countOf[event.Done](e)}
		if got != [3]int{w.accepted, w.failed, w.finished} {
			t.Errorf("receiver %d: event.Accepted, event.Error, event.Done = %v, want %v", i, got, w)
		}
		if countOf[event.Connected](e) != 1 {
			t.Errorf("receiver %d: %d event.Connected events", i, countOf[event.Connected](e))
		}
	}
}

// With no receivers, SendMany returns at once, with nothing.
func TestSendManyNone(t *testing.T) {
	res, stats := send.SendMany(t.Context(), send.ManyConfig{Items: []event.Item{{Text: "x"}}})
	if len(res) != 0 || stats.DiskRead != 0 {
		t.Errorf("%v %v", res, stats)
	}
}

// A receiver whose person is slow to accept holds the others back for
// ManyConfig.Gather at most: the first receiver here gets everything
// before the second has even accepted (it accepts only when the first
// has finished), and the second is then sent the files all the same,
// from the reads the first one made (the files fit in the window).
func TestSendManySlowAccepterDoesNotHoldOthers(t *testing.T) {
	ctx := t.Context()
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "f.bin"), pattern(700<<10, 3))
	writeFile(t, filepath.Join(src, "g.bin"), pattern(200<<10, 4))
	fast := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	slow := newPair(t, ctx, ReceiverConfig{Policy: Ask})
	under := testkit.NewCountFS(src)
	var order []string
	cfg := send.ManyConfig{
		Items:  []event.Item{{FS: under, Path: "f.bin"}, {FS: under, Path: "g.bin"}},
		To:     []send.SendConfig{fast.send, slow.send},
		Gather: 50 * time.Millisecond,
		OnEvent: func(to int, ev event.Event) {
			switch ev.(type) {
			case event.Done:
				order = append(order, fmt.Sprintf("%d finished", to))
				if to == 0 {
					slow.r.Accept()
				}
			case event.Accepted:
				order = append(order, fmt.Sprintf("%d accepted", to))
			}
		},
	}
	res, stats := send.SendMany(ctx, cfg)
	for i, p := range []*pair{fast, slow} {
		select {
		case r := <-p.served:
			if r.err != nil {
				t.Errorf("receiver %d: %v", i, r.err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("receiver %d never ended; results %+v", i, res)
		}
	}
	if res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("results: %v / %v", res[0].Err, res[1].Err)
	}
	if want := "0 accepted,0 finished,1 accepted,1 finished"; strings.Join(order, ",") != want {
		t.Errorf("order %q, want %q", strings.Join(order, ","), want)
	}
	for _, name := range []string{"f.bin", "g.bin"} {
		want, _ := os.ReadFile(filepath.Join(src, name))
		got, err := os.ReadFile(filepath.Join(slow.r.cfg.Dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("the slow receiver's %s did not arrive intact: %v", name, err)
		}
	}
	total := int64(900 << 10)
	if stats.DiskRead != total || under.BytesRead("f.bin")+under.BytesRead("g.bin") != total || res[1].ReadAgain != 0 {
		t.Errorf("disk read %d (counted %d) for %d bytes of files, %d again for the late one: want each file once",
			stats.DiskRead, under.BytesRead("f.bin")+under.BytesRead("g.bin"), total, res[1].ReadAgain)
	}
}
