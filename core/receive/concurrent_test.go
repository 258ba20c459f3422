package receive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// Real TCP on loopback, real files, real handshakes: several senders,
// each with a key of its own, to one Receiver serving with ServeMany.

// sharedCode is the fixed code (ReceiverConfig.Code) of the tests whose
// senders start at once with one code: a code the receiver picks lets
// in one sender (TestServeManyCodeLetsInOne), a fixed one every sender
// who types it.
const sharedCode = "314159"

// many is a receiver serving with ServeMany in the background.
type many struct {
	t      *testing.T
	r      *Receiver
	rev    *recorder
	dir    string
	served chan error
}

func newMany(t *testing.T, ctx context.Context, rcfg ReceiverConfig) *many {
	t.Helper()
	_, rid := ids(t)
	m := &many{t: t, rev: &recorder{}, served: make(chan error, 1)}
	if rcfg.Dir == "" {
		rcfg.Dir = t.TempDir()
	}
	m.dir = rcfg.Dir
	rcfg.Identity = rid
	rcfg.Listen = "127.0.0.1:0"
	rcfg.OnEvent = m.rev.on
	r, err := NewReceiver(rcfg)
	if err != nil {
		t.Fatal(err)
	}
	m.r = r
	ctx, cancel := context.WithCancel(ctx)
	go func() { m.served <- r.ServeMany(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-m.served; !errors.Is(err, transfer.ErrCancelled) {
			t.Errorf("ServeMany ended with %v, want ErrCancelled", err)
		}
		r.Close()
	})
	return m
}

// sender is the config of a sender with a key of its own.
func (m *many) sender(name string, items ...event.Item) send.SendConfig {
	m.t.Helper()
	id, err := secure.NewIdentity()
	if err != nil {
		m.t.Fatal(err)
	}
	return send.SendConfig{Addrs: []string{fmt.Sprintf("127.0.0.1:%d", m.r.Port())}, Code: m.r.Code(),
		Identity: id, Name: name, Items: items}
}

// sendAll runs each config's Send at once and returns their errors.
func sendAll(ctx context.Context, cfgs ...send.SendConfig) []error {
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for i, c := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = send.Send(ctx, c)
		}()
	}
	wg.Wait()
	return errs
}

// waitEvents waits until the receiver's recorder holds n events that
// match.
func (m *many) waitEvents(ctx context.Context, n int, match func(event.Event) bool) []event.Event {
	m.t.Helper()
	for {
		var got []event.Event
		for _, ev := range m.rev.all() {
			if match(ev) {
				got = append(got, ev)
			}
		}
		if len(got) >= n {
			return got
		}
		select {
		case <-ctx.Done():
			m.t.Fatalf("waiting for %d events: %d so far", n, len(got))
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// idle waits until no session runs: a session gives its place back a
// moment after its sender has its result.
func (m *many) idle(ctx context.Context) {
	m.t.Helper()
	for m.r.running() != 0 {
		select {
		case <-ctx.Done():
			m.t.Fatal("sessions never ended")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func isOffered(ev event.Event) bool { _, ok := ev.(event.Offer); return ok }

// Three senders at once, three questions open at once, each answered for
// its own session: two accepted, one declined. A fourth sender, while
// three run, is told busy. Every session-scoped event carries its
// session's id, and one session's events name one peer.
func TestServeManyQuestionsPerSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 3, Code: sharedCode})
	src := t.TempDir()
	var cfgs []send.SendConfig
	for i, name := range []string{"anna", "ben", "cleo"} {
		p := filepath.Join(src, name+".bin")
		writeFile(t, p, pattern(300<<10+i, byte(i)))
		cfgs = append(cfgs, m.sender(name, event.Item{Path: p}))
	}
	errs := make(chan []error, 1)
	go func() { errs <- sendAll(ctx, cfgs...) }()

	offers := m.waitEvents(ctx, 3, isOffered)
	// All three are open at once: a fourth sender is busy.
	extra := filepath.Join(src, "dora.bin")
	writeFile(t, extra, []byte("late"))
	_, err := send.Send(ctx, m.sender("dora", event.Item{Path: extra}))
	var busy *secure.BusyError
	if !errors.As(err, &busy) || busy.Running != 3 {
		t.Fatalf("a fourth sender while three run: got %v, want busy with 3 transfers", err)
	}
	t.Logf("the fourth sender is told: %v", err)
	byPeer := map[string]int{}
	for _, ev := range offers {
		o := ev.(event.Offer)
		if o.Session == 0 {
			t.Fatalf("Offered without a session id: %+v", o)
		}
		byPeer[o.PeerName] = o.Session
	}
	if len(byPeer) != 3 {
		t.Fatalf("offers from %v, want anna, ben and cleo", byPeer)
	}
	// Answered in another order than asked, each by its id.
	if err := m.r.DeclineSession(byPeer["ben"]); err != nil {
		t.Fatal(err)
	}
	if err := m.r.AcceptSession(byPeer["cleo"]); err != nil {
		t.Fatal(err)
	}
	if err := m.r.AcceptSession(byPeer["anna"]); err != nil {
		t.Fatal(err)
	}
	got := <-errs
	if got[0] != nil || got[2] != nil {
		t.Fatalf("accepted senders: anna %v, cleo %v", got[0], got[2])
	}
	if !errors.Is(got[1], transfer.ErrDeclined) {
		t.Fatalf("declined sender: got %v, want ErrDeclined", got[1])
	}
	if err := m.r.AcceptSession(byPeer["ben"]); err == nil {
		t.Fatal("AcceptSession of a session that ended: no error")
	}
	for _, name := range []string{"anna", "cleo"} {
		want, _ := os.ReadFile(filepath.Join(src, name+".bin"))
		have, err := os.ReadFile(filepath.Join(m.dir, name+".bin"))
		if err != nil || !bytes.Equal(have, want) {
			t.Fatalf("%s's file: %v (%d bytes, want %d)", name, err, len(have), len(want))
		}
	}
	if _, err := os.Stat(filepath.Join(m.dir, "ben.bin")); !os.IsNotExist(err) {
		t.Fatalf("the declined file is there: %v", err)
	}

	// Every session-scoped event is stamped, and a session's events are
	// one peer's. A session ends (Finished, Failed) after its sender has
	// its result.
	m.waitEvents(ctx, 3, func(ev event.Event) bool {
		switch e := ev.(type) {
		case event.Done:
			return e.Session != 0
		case event.Error:
			return e.Session != 0
		}
		return false
	})
	peerOf := map[int]string{}
	ended := map[int]event.Event{}
	for _, ev := range m.rev.all() {
		id := event.SessionOf(ev)
		switch e := ev.(type) {
		case event.Connected:
			peerOf[id] = e.PeerName
		case event.EntryDone:
			if want := peerOf[id] + ".bin"; e.SavedAs != want {
				t.Errorf("session %d (%s) saved %q", id, peerOf[id], e.SavedAs)
			}
		case event.Done, event.Error:
			if id != 0 {
				ended[id] = ev
			}
		case event.Progress, event.Offer, event.Text:
		default:
			continue
		}
		if id == 0 {
			t.Errorf("session-scoped event without an id: %T %+v", ev, ev)
		}
	}
	for name, id := range byPeer {
		if peerOf[id] != name {
			t.Errorf("session %d: event.Connected names %q, event.Offer %q", id, peerOf[id], name)
		}
		_, failed := ended[id].(event.Error)
		if failed != (name == "ben") {
			t.Errorf("session %d (%s) ended with %T", id, name, ended[id])
		}
	}
}

// Accept, with several questions open, answers the oldest: a front end
// that shows one question at a time keeps working.
func TestServeManyAcceptAnswersOldest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 2})
	src := t.TempDir()
	a, b := filepath.Join(src, "a.txt"), filepath.Join(src, "b.txt")
	writeFile(t, a, []byte("first"))
	writeFile(t, b, []byte("second"))
	first := make(chan error, 1)
	go func() { _, err := send.Send(ctx, m.sender("first", event.Item{Path: a})); first <- err }()
	m.waitEvents(ctx, 1, isOffered)
	second := make(chan error, 1)
	go func() { _, err := send.Send(ctx, m.sender("second", event.Item{Path: b})); second <- err }()
	m.waitEvents(ctx, 2, isOffered)
	m.r.Decline()
	if err := <-first; !errors.Is(err, transfer.ErrDeclined) {
		t.Fatalf("oldest question: got %v, want ErrDeclined", err)
	}
	m.r.Accept()
	if err := <-second; err != nil {
		t.Fatalf("next question: %v", err)
	}
}

// Two senders offer photo.jpg into one folder at once: one file keeps the
// name, the other is "photo (1).jpg", whichever is placed first. With
// Overwrite, the last placed wins and its result says it replaced one.
// (A CI run once saw neither say so: placing with overwrite looked for
// the name, then renamed, and both sessions looked before either
// renamed. place.Dest.Place now learns it from the step that places the
// file, a link that fails where the name is taken.)
func TestServeManySameNames(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("overwrite=%v", overwrite), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 2, Overwrite: overwrite, Code: sharedCode})
			var cfgs []send.SendConfig
			contents := map[string]bool{}
			for i := range 2 {
				p := filepath.Join(t.TempDir(), "photo.jpg")
				data := pattern(1<<20+i*1000, byte(10+i))
				writeFile(t, p, data)
				contents[string(data)] = true
				cfgs = append(cfgs, m.sender(fmt.Sprint("s", i), event.Item{Path: p}))
			}
			errs := make(chan []error, 1)
			go func() { errs <- sendAll(ctx, cfgs...) }()
			// Both offers are in before either is answered: both are
			// in flight at once.
			for _, ev := range m.waitEvents(ctx, 2, isOffered) {
				if err := m.r.AcceptSession(event.SessionOf(ev)); err != nil {
					t.Fatal(err)
				}
			}
			for i, err := range <-errs {
				if err != nil {
					t.Fatalf("sender %d: %v", i, err)
				}
			}
			done := eventsOf[event.EntryDone](m.rev)
			if len(done) != 2 {
				t.Fatalf("%d EntryDone, want 2", len(done))
			}
			sort.Slice(done, func(i, j int) bool { return done[i].SavedAs < done[j].SavedAs })
			if !overwrite {
				if done[0].SavedAs != "photo (1).jpg" || done[1].SavedAs != "photo.jpg" || done[0].Replaced || done[1].Replaced {
					t.Fatalf("saved as %+v", done)
				}
				if l := listDir(t, m.dir); len(l) != 2 {
					t.Fatalf("destination holds %v", l)
				}
				for _, name := range []string{"photo.jpg", "photo (1).jpg"} {
					b, err := os.ReadFile(filepath.Join(m.dir, name))
					if err != nil || !contents[string(b)] {
						t.Fatalf("%s: %v, or not one sender's content", name, err)
					}
					delete(contents, string(b))
				}
				return
			}
			if done[0].SavedAs != "photo.jpg" || done[1].SavedAs != "photo.jpg" || done[0].Replaced == done[1].Replaced {
				t.Fatalf("with overwrite, saved as %+v: want both photo.jpg, one replacing the other", done)
			}
			last := done[0]
			if done[1].Replaced {
				last = done[1]
			}
			b, err := os.ReadFile(filepath.Join(m.dir, "photo.jpg"))
			if err != nil || int64(len(b)) != last.Entry.Size {
				t.Fatalf("photo.jpg: %v, %d bytes: want the last placed (%d bytes)", err, len(b), last.Entry.Size)
			}
		})
	}
}

// The same sender sends the same file twice at once: one partial file
// per name and sender would mix the two, so the second writes a spare.
// Both are held mid-stream until both are writing: otherwise the first
// can be placed before the second is answered, and the second then
// rightly finds an identical file in place and skips it.
func TestServeManySameSenderTwice(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 2, Code: sharedCode})
	p := filepath.Join(t.TempDir(), "same.bin")
	data := pattern(2<<20, 7)
	writeFile(t, p, data)
	cfg := m.sender("twice", event.Item{Path: p})
	hold := make(chan struct{})
	var cfgs []send.SendConfig
	var conns []*gatedConn
	for range 2 {
		g := &gatedConn{holdAfter: 1 << 20, hold: hold, held: make(chan struct{})}
		c := cfg
		c.Dialer = gatedDialer(g)
		cfgs, conns = append(cfgs, c), append(conns, g)
	}
	errs := make(chan []error, 1)
	go func() { errs <- sendAll(ctx, cfgs...) }()
	for _, ev := range m.waitEvents(ctx, 2, isOffered) {
		m.r.AcceptSession(event.SessionOf(ev))
	}
	for _, g := range conns {
		select {
		case <-g.held: // 1 MiB of it sent: it writes a partial file now
		case errs := <-errs:
			t.Fatalf("a send ended before both were writing: %v", errs)
		case <-ctx.Done():
			t.Fatal("a send never reached 1 MiB")
		}
	}
	close(hold)
	for i, err := range <-errs {
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	for _, name := range []string{"same.bin", "same (1).bin"} {
		b, err := os.ReadFile(filepath.Join(m.dir, name))
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The receiver removes the partial folder as its last session ends,
	// a moment after the senders have their results.
	m.idle(ctx)
	if _, err := os.Stat(filepath.Join(m.dir, place.PartialDir)); !os.IsNotExist(err) {
		t.Fatalf("the partial folder stayed: %v", err)
	}
}

// gatedConn is a sender's connection that writes at most rate bytes a
// second (0: as fast as it can) and, once it wrote holdAfter bytes,
// writes nothing more until hold is closed. The sleeps pace the sender;
// no test reads a clock.
type gatedConn struct {
	net.Conn
	rate      int
	holdAfter int64
	hold      <-chan struct{}
	held      chan struct{} // closed once it waits on hold
	once      sync.Once
	written   int64
}

func (c *gatedConn) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if c.hold != nil && c.written >= c.holdAfter {
			c.once.Do(func() { close(c.held) })
			<-c.hold
		}
		k := len(p) - n
		if c.rate > 0 {
			piece := c.rate / 16
			k = min(k, piece)
			time.Sleep(time.Second / 16)
		}
		w, err := c.Conn.Write(p[n : n+k])
		n += w
		c.written += int64(w)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func gatedDialer(c *gatedConn) func(ctx context.Context, addr string) (net.Conn, error) {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		c.Conn = nc
		return c, nil
	}
}

// A sender throttled to 1 MiB/s, and held part way, does not hold back
// two senders at full speed: both finish while it is still sending, and
// it finishes after. Nothing here reads a clock: the order is the claim.
// (The speeds are measured in benches/concur-rss.sh.)
func TestServeManySlowSenderDoesNotSlowOthers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 3, Policy: AcceptAll, Code: sharedCode})
	src := t.TempDir()
	hold := make(chan struct{})
	slowConn := &gatedConn{rate: 1 << 20, holdAfter: 1 << 20, hold: hold, held: make(chan struct{})}
	slowPath := filepath.Join(src, "slow.bin")
	writeFile(t, slowPath, pattern(3<<20, 1))
	slow := m.sender("slow", event.Item{Path: slowPath})
	slow.Dialer = gatedDialer(slowConn)
	slowDone := make(chan error, 1)
	go func() { _, err := send.Send(ctx, slow); slowDone <- err }()
	<-slowConn.held // the slow sender is in its transfer, holding

	var fast []send.SendConfig
	for i := range 2 {
		p := filepath.Join(src, fmt.Sprintf("fast%d.bin", i))
		writeFile(t, p, pattern(24<<20, byte(2+i)))
		fast = append(fast, m.sender(fmt.Sprint("fast", i), event.Item{Path: p}))
	}
	for i, err := range sendAll(ctx, fast...) {
		if err != nil {
			t.Fatalf("fast sender %d: %v", i, err)
		}
	}
	select {
	case err := <-slowDone:
		t.Fatalf("the slow sender ended before it was let go: %v", err)
	default:
	}
	close(hold)
	if err := <-slowDone; err != nil {
		t.Fatalf("slow sender: %v", err)
	}
	for _, name := range []string{"slow.bin", "fast0.bin", "fast1.bin"} {
		want, _ := os.ReadFile(filepath.Join(src, name))
		have, err := os.ReadFile(filepath.Join(m.dir, name))
		if err != nil || !bytes.Equal(have, want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// Two senders, each killed halfway through at once, resume at once:
// their partial files are keyed by sender and never mix, and each
// resumes its own.
func TestServeManyResumeEach(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dir := t.TempDir()
	src := t.TempDir()
	m := newMany(t, ctx, ReceiverConfig{Dir: dir, MaxConcurrent: 2, Policy: AcceptAll, Code: "135790"})
	var cfgs []send.SendConfig
	for i := range 2 {
		p := filepath.Join(src, fmt.Sprint(i), "video.bin") // one name for both
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeFile(t, p, pattern(4<<20+i, byte(20+i)))
		cfgs = append(cfgs, m.sender(fmt.Sprint("s", i), event.Item{Path: p}))
	}
	// First run: each sender is held after 1 MiB, then cut.
	var conns []*gatedConn
	hold := make(chan struct{})
	cut := make([]send.SendConfig, 2)
	for i, c := range cfgs {
		g := &gatedConn{holdAfter: 1 << 20, hold: hold, held: make(chan struct{})}
		conns = append(conns, g)
		c.Dialer = gatedDialer(g)
		cut[i] = c
	}
	errs := make(chan []error, 1)
	go func() { errs <- sendAll(ctx, cut...) }()
	for _, g := range conns {
		<-g.held
	}
	for _, g := range conns {
		g.Conn.Close()
	}
	close(hold)
	for i, err := range <-errs {
		if err == nil {
			t.Fatalf("cut sender %d succeeded", i)
		}
	}
	// Both sessions end; their partial files stay.
	m.waitEvents(ctx, 2, func(ev event.Event) bool { f, ok := ev.(event.Error); return ok && f.Session != 0 })
	parts, _ := os.ReadDir(filepath.Join(dir, place.PartialDir))
	if len(parts) != 2 {
		t.Fatalf("partial files after the cut: %d, want one per sender", len(parts))
	}

	// Second run, both at once: each resumes its own.
	m.idle(ctx)
	for i, err := range sendAll(ctx, cfgs...) {
		if err != nil {
			t.Fatalf("resumed sender %d: %v", i, err)
		}
	}
	var resumed int
	for _, e := range eventsOf[event.EntryDone](m.rev) {
		if e.Outcome == event.Resumed {
			resumed++
		}
	}
	if resumed != 2 {
		t.Fatalf("%d resumed, want 2", resumed)
	}
	got := map[string]bool{}
	for _, name := range []string{"video.bin", "video (1).bin"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got[string(b)] = true
	}
	for i := range 2 {
		want, _ := os.ReadFile(filepath.Join(src, fmt.Sprint(i), "video.bin"))
		if !got[string(want)] {
			t.Fatalf("sender %d's file is not among those received", i)
		}
	}
}

// A code the receiver picked lets in one sender: the first handshake
// that proves it uses it up, and the next code is picked and announced
// at once (CodeUsed), before the offer is even answered. A second
// sender who types the same code while the first runs is refused as a
// wrong code (counted, as any guess against a retired code), the first
// transfer goes on to the end, and the new code lets the next sender in.
func TestServeManyCodeLetsInOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	budget := guess.NewBudget(guess.Config{})
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 2, Budget: budget})
	code := m.r.Code()
	src := t.TempDir()
	a, b := filepath.Join(src, "a.bin"), filepath.Join(src, "b.bin")
	writeFile(t, a, pattern(1<<20, 1))
	writeFile(t, b, pattern(1<<20, 2))
	firstDone := make(chan error, 1)
	go func() { _, err := send.Send(ctx, m.sender("a", event.Item{Path: a})); firstDone <- err }()
	offer := m.waitEvents(ctx, 1, isOffered)[0]
	// The code changed at the proof: the first offer still waits.
	changed := eventsOf[event.CodeChanged](m.rev)
	if len(changed) != 1 || changed[0].Reason != event.CodeUsed || changed[0].Code == code || m.r.Code() != changed[0].Code {
		t.Fatalf("code changes before the first offer is answered: %+v (first code %s, Code() %s)", changed, code, m.r.Code())
	}
	next := changed[0].Code
	second := m.sender("b", event.Item{Path: b})
	second.Code = code
	if _, err := send.Send(ctx, second); !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("a second sender with the used code while the first runs: got %v, want a wrong code", err)
	}
	if got := budget.Wrong(); got != 1 {
		t.Fatalf("the budget counted %d wrong codes after the used code was tried, want 1", got)
	}
	if err := m.r.AcceptSession(event.SessionOf(offer)); err != nil {
		t.Fatalf("the first session after its code was used up: %v", err)
	}
	if err := <-firstDone; err != nil {
		t.Fatalf("the first sender: %v", err)
	}
	if n := len(eventsOf[event.CodeChanged](m.rev)); n != 1 {
		t.Fatalf("%d CodeChanged after the first transfer ended, want 1: the code changes at the proof, not the end", n)
	}
	// The next sender types the next code.
	second.Code = next
	go func() { _, err := send.Send(ctx, second); firstDone <- err }()
	offers := m.waitEvents(ctx, 2, isOffered)
	m.r.AcceptSession(event.SessionOf(offers[1]))
	if err := <-firstDone; err != nil {
		t.Fatalf("the next sender with the next code: %v", err)
	}
}

// A flood of wrong codes while two transfers run: the transfers finish,
// and the device's one guess budget counts every wrong code checked,
// however many handshakes run at once (run with -race).
func TestServeManyWrongCodesDuringTransfers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	budget := guess.NewBudget(guess.Config{})
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 4, Policy: AcceptAll, Budget: budget, Code: "246810"})
	src := t.TempDir()
	var honest []send.SendConfig
	for i := range 2 {
		p := filepath.Join(src, fmt.Sprint("h", i, ".bin"))
		writeFile(t, p, pattern(32<<20, byte(40+i)))
		honest = append(honest, m.sender(fmt.Sprint("honest", i), event.Item{Path: p}))
	}
	junk := filepath.Join(src, "junk.txt")
	writeFile(t, junk, []byte("x"))
	// The honest senders pass their handshakes first (wrong codes retire
	// the code they typed), then the guessers come while they send.
	honestDone := make(chan []error, 1)
	go func() { honestDone <- sendAll(ctx, honest...) }()
	m.waitEvents(ctx, 2, isOffered)
	// Four at a time: beyond 8 pending from one address, the oldest is
	// closed (accept.go), which is another test's concern.
	const guessers = 12
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range guessers {
		g := m.sender(fmt.Sprint("guesser", i), event.Item{Path: junk})
		g.Code = fmt.Sprintf("%06d", 100000+i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			_, err := send.Send(ctx, g)
			<-sem
			k := "other"
			switch {
			case errors.Is(err, secure.ErrWrongCode):
				k = "wrong"
			case errors.Is(err, secure.ErrCodeRetired):
				k = "retired" // the third wrong one, or one unchecked after it
			case errors.Is(err, secure.ErrCodesHeld):
				k = "held"
			case errors.Is(err, secure.ErrBusy):
				k = "busy"
			}
			if k == "other" {
				t.Logf("guesser: %v", err)
			}
			mu.Lock()
			outcomes[k]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	for i, err := range <-honestDone {
		if err != nil {
			t.Fatalf("honest sender %d during the flood: %v", i, err)
		}
	}
	if outcomes["other"] != 0 || outcomes["wrong"] == 0 {
		t.Fatalf("guessers' outcomes: %v", outcomes)
	}
	if got := budget.Wrong(); got < outcomes["wrong"] || got > outcomes["wrong"]+outcomes["retired"] {
		t.Fatalf("the budget counted %d wrong codes, the guessers were told %v", got, outcomes)
	}
	for i := range 2 {
		want, _ := os.ReadFile(filepath.Join(src, fmt.Sprint("h", i, ".bin")))
		have, err := os.ReadFile(filepath.Join(m.dir, fmt.Sprint("h", i, ".bin")))
		if err != nil || !bytes.Equal(have, want) {
			t.Fatalf("honest file %d: %v", i, err)
		}
	}
}

// MaxConcurrent beyond the limit is refused; 0 and 1 serve one at a time
// (ServeMany then refuses a second sender as busy while one runs).
func TestMaxConcurrentBounds(t *testing.T) {
	_, rid := ids(t)
	for _, n := range []int{-1, MaxConcurrentLimit + 1} {
		if _, err := NewReceiver(ReceiverConfig{Dir: t.TempDir(), Identity: rid, Listen: "127.0.0.1:0", MaxConcurrent: n}); err == nil {
			t.Fatalf("MaxConcurrent %d accepted", n)
		}
	}
	if _, err := NewReceiver(ReceiverConfig{Sink: &memSink{}, Identity: rid, NoListen: true, MaxConcurrent: 2}); err == nil {
		t.Fatal("a Sink receiver with MaxConcurrent 2 accepted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 1, Code: "975310"}) // a fixed code stays
	p := filepath.Join(t.TempDir(), "one.txt")
	writeFile(t, p, []byte("one"))
	done := make(chan error, 1)
	go func() { _, err := send.Send(ctx, m.sender("one", event.Item{Path: p})); done <- err }()
	m.waitEvents(ctx, 1, isOffered)
	_, err := send.Send(ctx, m.sender("two", event.Item{Path: p}))
	var busy *secure.BusyError
	if !errors.As(err, &busy) || busy.Running != 1 {
		t.Fatalf("a second sender with MaxConcurrent 1: got %v, want busy with 1 transfer", err)
	}
	m.r.Accept()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The next sender is served: ServeMany goes on.
	m.idle(ctx)
	go func() { _, err := send.Send(ctx, m.sender("three", event.Item{Path: p})); done <- err }()
	m.waitEvents(ctx, 2, isOffered)
	m.r.Accept()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Two handshakes begin under one code; the first proves it while the
// second's guess waits. The second is refused unchecked (told a wrong
// code: that code lets nobody else in), and the first, proven already,
// is not cut by its code being used up: it goes on to the end.
func TestServeManyHandshakeAfterCodeUsed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	firstGuess, lateGuess, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var guesses sync.Mutex
	n := 0
	h := &testhooks.Hooks{Guessing: func() {
		guesses.Lock()
		n++
		k := n
		guesses.Unlock()
		switch k {
		case 1: // the first guess waits until the late handshake began
			close(firstGuess)
			<-lateGuess
		case 2: // the late guess waits until the first proved the code
			close(lateGuess)
			<-release
		}
	}}
	budget := guess.NewBudget(guess.Config{})
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 2, Policy: AcceptAll, hooks: h, Budget: budget})
	p := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, p, []byte("hello"))
	first, late := m.sender("first", event.Item{Path: p}), m.sender("late", event.Item{Path: p})
	firstDone, lateDone := make(chan error, 1), make(chan error, 1)
	go func() { _, err := send.Send(ctx, first); firstDone <- err }()
	<-firstGuess
	go func() { _, err := send.Send(ctx, late); lateDone <- err }()
	m.waitEvents(ctx, 1, func(ev event.Event) bool { c, ok := ev.(event.CodeChanged); return ok && c.Reason == event.CodeUsed })
	close(release)
	if err := <-lateDone; !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("a handshake begun under the code another used up: got %v, want a wrong code", err)
	}
	if got := budget.Wrong(); got != 0 {
		t.Fatalf("the budget counted %d wrong codes: a guess against a used code is refused unchecked", got)
	}
	if err := <-firstDone; err != nil {
		t.Fatalf("the proven sender, its code used up meanwhile: %v", err)
	}
	if c := eventsOf[event.CodeChanged](m.rev); len(c) != 1 {
		t.Fatalf("code changes: %+v, want one (the first's proof)", c)
	}
}

// A paired sender and a sender with the code at once: each session
// authenticates its own way, and the paired one uses up no code.
func TestServeManyPairedBesideCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sid, rid := ids(t)
	pins := &pinSet{keys: [][]byte{sid.Public()}}
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 2, Paired: pins.has})
	code := m.r.Code()
	src := t.TempDir()
	a, b := filepath.Join(src, "paired.txt"), filepath.Join(src, "coded.txt")
	writeFile(t, a, []byte("by pins"))
	writeFile(t, b, []byte("by code"))
	paired := m.sender("paired", event.Item{Path: a})
	paired.Identity, paired.Code, paired.PeerKey = sid, "", rid.Public()
	errs := make(chan []error, 1)
	go func() { errs <- sendAll(ctx, paired, m.sender("coded", event.Item{Path: b})) }()
	offers := m.waitEvents(ctx, 2, isOffered)
	for _, ev := range offers {
		m.r.AcceptSession(event.SessionOf(ev))
	}
	for i, err := range <-errs {
		if err != nil {
			t.Fatalf("sender %d: %v", i, err)
		}
	}
	byName := map[string]event.Connected{}
	for _, c := range eventsOf[event.Connected](m.rev) {
		byName[c.PeerName] = c
	}
	if !byName["paired"].Paired || byName["coded"].Paired || byName["paired"].Session == byName["coded"].Session {
		t.Fatalf("Connected: %+v", byName)
	}
	// Both sessions end after their senders have their results.
	m.waitEvents(ctx, 2, func(ev event.Event) bool { f, ok := ev.(event.Done); return ok && f.Session != 0 })
	m.waitEvents(ctx, 1, func(ev event.Event) bool { _, ok := ev.(event.CodeChanged); return ok })
	used := eventsOf[event.CodeChanged](m.rev)
	if len(used) != 1 || used[0].Reason != event.CodeUsed || m.r.Code() == code {
		t.Fatalf("code changes: %+v: want the code sender's transfer alone to use the code", used)
	}
	for _, f := range []string{a, b} {
		want, _ := os.ReadFile(f)
		have, err := os.ReadFile(filepath.Join(m.dir, filepath.Base(f)))
		if err != nil || !bytes.Equal(have, want) {
			t.Fatalf("%s: %v", f, err)
		}
	}
}

// Two senders in progress under one name, with two keys: the second's
// session says so (SameName, with both fingerprints, after its
// Connected and before its Offer), and its Offer names the first's
// fingerprint for the question. The first's offer, and a third sender
// under another name, are not flagged.
func TestServeManySameNameFlagged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newMany(t, ctx, ReceiverConfig{MaxConcurrent: 3})
	p := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, p, []byte("hello"))
	errs := make(chan error, 3)
	send := func(name string, offers int) event.Offer {
		cfg := m.sender(name, event.Item{Path: p}) // the code shown now
		go func() { _, err := send.Send(ctx, cfg); errs <- err }()
		return m.waitEvents(ctx, offers, isOffered)[offers-1].(event.Offer)
	}
	first := send("Ann's phone", 1)
	second := send("Ann's phone", 2)
	other := send("Bob's phone", 3)
	same := eventsOf[event.SameName](m.rev)
	if len(same) != 1 {
		t.Fatalf("SameName events: %+v, want one", same)
	}
	s := same[0]
	if s.PeerName != "Ann's phone" || s.PeerFingerprint != second.PeerFingerprint || s.OtherFingerprint != first.PeerFingerprint ||
		s.PeerFingerprint == s.OtherFingerprint || s.Session != second.Session || s.OtherSession != first.Session {
		t.Fatalf("SameName %+v; first offer %s in %d, second %s in %d", s, first.PeerFingerprint, first.Session, second.PeerFingerprint, second.Session)
	}
	if !slices.Equal(second.SameNameAs, []string{first.PeerFingerprint}) || first.SameNameAs != nil || other.SameNameAs != nil {
		t.Fatalf("offers' SameNameAs: first %v, second %v, other %v", first.SameNameAs, second.SameNameAs, other.SameNameAs)
	}
	// In the second session's order: Connected, SameName, Offer.
	var order []string
	for _, ev := range m.rev.all() {
		if event.SessionOf(ev) == second.Session {
			order = append(order, ev.Type())
		}
	}
	if len(order) < 3 || order[0] != "connected" || order[1] != "same_name" || order[2] != "offer" {
		t.Fatalf("the second session's events: %v", order)
	}
	for _, o := range []event.Offer{first, second, other} {
		m.r.AcceptSession(o.Session)
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
