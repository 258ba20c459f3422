package receive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
	"github.com/ferry-project/ferry/core/internal/testhooks"
	"github.com/ferry-project/ferry/core/place"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/wire"
)

func TestDeclined(t *testing.T) {
	for _, ask := range []bool{false, true} {
		t.Run(fmt.Sprintf("ask=%v", ask), func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "f.txt")
			writeFile(t, src, []byte("no thanks"))
			cfg := ReceiverConfig{Policy: DeclineAll}
			var p *pair
			if ask {
				cfg.Policy = Ask
				rec := &recorder{}
				cfg.OnEvent = rec.on
				rec.hook = func(ev event.Event) {
					if _, ok := ev.(event.Offer); ok {
						p.r.Decline() // from inside the handler: must not block
					}
				}
				p = newPair(t, t.Context(), cfg)
				p.rev = rec
			} else {
				p = newPair(t, t.Context(), cfg)
			}
			_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
			if !errors.Is(serr, transfer.ErrDeclined) || !errors.Is(rerr, transfer.ErrDeclined) {
				t.Fatalf("send: %v; receive: %v; want ErrDeclined on both", serr, rerr)
			}
			t.Logf("sender: %v", serr)
			if n := listDir(t, p.r.cfg.Dir); len(n) != 0 {
				t.Errorf("declined offer wrote %v", n)
			}
			if len(eventsOf[event.Offer](p.rev)) != 1 || len(eventsOf[event.Error](p.sev)) != 1 || len(eventsOf[event.Error](p.rev)) != 1 {
				t.Error("expected one event.Offer and one Failed on each end")
			}
		})
	}
}

func TestWrongCode(t *testing.T) {
	ctx := t.Context()
	src := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, src, []byte("secret"))
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Attempts: 2}})
	good := p.send.Code
	bad := p.send
	bad.Items = []event.Item{{Path: src}}
	bad.Code = "000000"
	if good == bad.Code {
		bad.Code = "111111"
	}
	_, err := send.Send(ctx, bad)
	if !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
		t.Fatalf("wrong code: %v", err)
	}
	if n, _ := os.ReadDir(p.r.cfg.Dir); len(n) != 0 {
		t.Fatalf("a wrong code created %v", n)
	}
	// The receiver is still listening, and the right code still works.
	ssum, serr, _, rerr := p.run(ctx, event.Item{Path: src})
	if serr != nil || rerr != nil {
		t.Fatalf("right code after a wrong one: %v / %v", serr, rerr)
	}
	if len(ssum.Entries) != 1 {
		t.Errorf("entries %v", ssum.Entries)
	}

	// maxAttempts wrong guesses retire the code.
	p2 := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Attempts: 2}})
	retired := make(chan struct{})
	p2.rev.hook = func(ev event.Event) {
		if c, ok := ev.(event.CodeChanged); ok && c.Reason == event.CodeRetired {
			close(retired)
		}
	}
	bad.Addrs = p2.send.Addrs
	for range 2 {
		if _, err := send.Send(ctx, bad); err == nil {
			t.Fatal("wrong code accepted")
		}
	}
	<-retired // the sender can learn of the rejection before Serve counts it
	changed := eventsOf[event.CodeChanged](p2.rev)
	if len(changed) != 1 || changed[0].Reason != event.CodeRetired || changed[0].Code == p2.send.Code || changed[0].Code != p2.r.Code() {
		t.Fatalf("CodeChanged %v (old %s, now %s)", changed, p2.send.Code, p2.r.Code())
	}
	p2.send.Code = p2.r.Code()
	if _, serr, _, rerr := p2.run(ctx, event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("new code: %v / %v", serr, rerr)
	}
}

func TestSkipClashOverwrite(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFile(t, filepath.Join(src, "doc.txt"), []byte("version one"))
	writeFile(t, filepath.Join(src, "folder", "inner.txt"), []byte("inner"))
	dest := filepath.Join(dir, "dest")
	os.Mkdir(dest, 0o755)
	send := func(overwrite bool, items ...event.Item) (event.Summary, event.Summary) {
		t.Helper()
		p := newPair(t, ctx, ReceiverConfig{Dir: dest, Policy: AcceptAll, Overwrite: overwrite})
		ssum, serr, rsum, rerr := p.run(ctx, items...)
		if serr != nil || rerr != nil {
			t.Fatalf("send: %v; receive: %v", serr, rerr)
		}
		return ssum, rsum
	}
	doc := event.Item{Path: filepath.Join(src, "doc.txt")}
	folder := event.Item{Path: filepath.Join(src, "folder")}

	send(false, doc, folder)
	// Identical: skipped, nothing crosses.
	ssum, rsum := send(false, doc, folder)
	if ssum.Bytes != 0 || rsum.SkippedBytes != int64(len("version one")+len("inner")) {
		t.Errorf("second send moved %d bytes, skipped %d", ssum.Bytes, rsum.SkippedBytes)
	}
	for _, e := range rsum.Entries {
		if e.Entry.Kind == event.KindFile && e.Outcome != event.Skipped {
			t.Errorf("%s: %v, want skipped", e.Entry.Path, e.Outcome)
		}
	}
	// Different content, same size: a clash name, the original untouched.
	writeFile(t, filepath.Join(src, "doc.txt"), []byte("version two"))
	_, rsum = send(false, doc)
	if rsum.Entries[0].SavedAs != "doc (1).txt" {
		t.Errorf("saved as %q, want doc (1).txt", rsum.Entries[0].SavedAs)
	}
	writeFile(t, filepath.Join(src, "doc.txt"), []byte("version three!"))
	_, rsum = send(false, doc)
	if rsum.Entries[0].SavedAs != "doc (2).txt" {
		t.Errorf("saved as %q, want doc (2).txt", rsum.Entries[0].SavedAs)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "doc.txt")); string(b) != "version one" {
		t.Errorf("original overwritten: %q", b)
	}
	// Overwrite replaces.
	_, rsum = send(true, doc)
	if b, _ := os.ReadFile(filepath.Join(dest, "doc.txt")); string(b) != "version three!" || rsum.Entries[0].SavedAs != "doc.txt" {
		t.Errorf("overwrite: %q saved as %q", b, rsum.Entries[0].SavedAs)
	}
	// A file where the folder should go: the folder gets a clash name.
	os.RemoveAll(filepath.Join(dest, "folder"))
	writeFile(t, filepath.Join(dest, "folder"), []byte("a file"))
	_, rsum = send(false, folder)
	saved := []string{}
	for _, e := range rsum.Entries {
		saved = append(saved, e.SavedAs)
	}
	slices.Sort(saved)
	if strings.Join(saved, ",") != "folder (1),folder (1)/inner.txt" {
		t.Errorf("folder clash saved as %v", saved)
	}
	want := []string{"doc (1).txt", "doc (2).txt", "doc.txt", "folder", "folder (1)"}
	if got := listDir(t, dest); !slices.Equal(got, want) {
		t.Errorf("destination holds %v, want %v", got, want)
	}
}

func TestSaveText(t *testing.T) {
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, SaveText: true})
	_, serr, rsum, rerr := p.run(t.Context(), event.Item{Text: "one"}, event.Item{Text: "two"})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	for i, want := range []string{"one", "two"} {
		name := rsum.Entries[i].SavedAs
		if b, err := os.ReadFile(filepath.Join(p.r.cfg.Dir, name)); err != nil || string(b) != want {
			t.Errorf("text %d saved as %q: %q, %v", i, name, b, err)
		}
	}
}

// bigSource writes a file of n chunks, enough for events mid-file.
func bigSource(t *testing.T, chunks int) string {
	src := filepath.Join(t.TempDir(), "big.bin")
	writeFile(t, src, pattern(chunks*transfer.MaxChunk, 9))
	return src
}

func TestCancelFromSender(t *testing.T) {
	src := bigSource(t, 8)
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	p.sev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Progress); ok {
			cancel(errors.New("the user pressed stop"))
		}
	}
	_, serr, _, rerr := p.run(ctx, event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrCancelled) || !errors.Is(rerr, transfer.ErrCancelled) {
		t.Fatalf("send: %v; receive: %v; want ErrCancelled on both", serr, rerr)
	}
	if !strings.Contains(rerr.Error(), "the user pressed stop") {
		t.Errorf("receiver did not get the reason: %v", rerr)
	}
	t.Logf("receiver: %v", rerr)
	if n := listDir(t, p.r.cfg.Dir); len(n) != 0 {
		t.Errorf("final files after cancel: %v", n)
	}
	if parts, _ := os.ReadDir(filepath.Join(p.r.cfg.Dir, place.PartialDir)); len(parts) != 1 {
		t.Errorf("partial file not kept: %v", parts)
	}
}

func TestCancelFromReceiver(t *testing.T) {
	src := bigSource(t, 8)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	p := newPair(t, ctx, ReceiverConfig{Policy: AcceptAll})
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Progress); ok {
			cancel(errors.New("disk is for something else"))
		}
	}
	_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrCancelled) || !errors.Is(rerr, transfer.ErrCancelled) {
		t.Fatalf("send: %v; receive: %v; want ErrCancelled on both", serr, rerr)
	}
	if !strings.Contains(serr.Error(), "disk is for something else") {
		t.Errorf("sender did not get the reason: %v", serr)
	}
	t.Logf("sender: %v", serr)
}

func TestCancelWhileOfferPending(t *testing.T) {
	src := bigSource(t, 1)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	p := newPair(t, t.Context(), ReceiverConfig{Policy: Ask})
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Offer); ok {
			cancel(errors.New("changed my mind"))
		}
	}
	_, serr, _, rerr := p.run(ctx, event.Item{Path: src})
	if !errors.Is(serr, transfer.ErrCancelled) || !errors.Is(rerr, transfer.ErrCancelled) || !strings.Contains(rerr.Error(), "changed my mind") {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
}

func TestSilentPeers(t *testing.T) {
	t.Run("silent receiver", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		sid, _ := ids(t)
		addr := rawServer(t, t.Context(), "424242", func(c *secure.Conn) { <-hold })
		src := filepath.Join(t.TempDir(), "f")
		writeFile(t, src, []byte("x"))
		_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: "424242", Identity: sid, Items: []event.Item{{Path: src}}, Timeout: 300 * time.Millisecond})
		if !errors.Is(err, transfer.ErrTimeout) {
			t.Fatalf("send: %v, want ErrTimeout", err)
		}
	})
	t.Run("silent sender", func(t *testing.T) {
		p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Timeout: 300 * time.Millisecond})
		r := dialRaw(t, t.Context(), p) // handshakes, then says nothing
		if err := p.serveErr(t); !errors.Is(err, transfer.ErrTimeout) {
			t.Fatalf("receiver: %v, want ErrTimeout", err)
		}
		expectTimeoutAbort(t, r)
	})
	t.Run("sender that stops mid-file", func(t *testing.T) {
		p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, Timeout: 300 * time.Millisecond})
		r := dialRaw(t, t.Context(), p)
		r.send(wire.MsgOffer, wire.Offer{Version: wire.Version, Total: 10, Entries: []event.Entry{{Path: "f", Kind: event.KindFile, Size: 10}}}.Encode())
		r.expect(wire.MsgHello)
		r.expect(wire.MsgAnswer)
		r.send(wire.MsgBegin, wire.Begin{}.Encode())
		r.send(wire.MsgData, []byte("12345"))
		if err := p.serveErr(t); !errors.Is(err, transfer.ErrTimeout) {
			t.Fatalf("receiver: %v, want ErrTimeout", err)
		}
		expectTimeoutAbort(t, r)
	})
}

// expectTimeoutAbort: a sender that was silent too long and reads again
// learns that the receiver timed out, not that its stream just ended.
func expectTimeoutAbort(t *testing.T, r *rawPeer) {
	t.Helper()
	m := r.expectAbort()
	err := transfer.PeerAbortError("the receiver", m)
	if !errors.Is(err, transfer.ErrTimeout) || !strings.Contains(m.Reason, "heard nothing") {
		t.Errorf("abort %d %q (%v), want a timeout that says so", m.Code, m.Reason, err)
	}
}

// A person taking longer than the timeout to accept must not time out
// either end: while the offer waits, the receiver's keepalives keep the
// sender's reads alive, and the sender's the receiver's. Without either,
// that end hears nothing for twice the timeout and fails.
func TestSlowHumanDoesNotTimeOut(t *testing.T) {
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, []byte("patience"))
	// A keepalive every quarter of the timeout leaves three quarters of it
	// for delays. This process holds both ends, so a stall of the whole
	// process longer than what is left fails the test whatever the
	// cadence: with 200 ms, 500 ms and 1 s timeouts that happened now and
	// then on a machine at load 10. 3 s leaves 2.25 s.
	const timeout = 3 * time.Second
	p := newPair(t, t.Context(), ReceiverConfig{Policy: Ask, Timeout: timeout})
	p.send.Timeout = timeout
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Offer); ok {
			// The delay is the behaviour under test, not a synchronisation.
			time.AfterFunc(2*timeout, p.r.Accept)
		}
	}
	if _, serr, _, rerr := p.run(t.Context(), event.Item{Path: src}); serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
}

func TestSourceChanged(t *testing.T) {
	for _, how := range []string{"grows", "shrinks", "touched"} {
		t.Run(how, func(t *testing.T) {
			src := bigSource(t, 4)
			p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll})
			changed := false
			p.sev.hook = func(ev event.Event) {
				if _, ok := ev.(event.Progress); ok && !changed {
					changed = true
					switch how {
					case "grows":
						f, _ := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
						f.Write([]byte("more"))
						f.Close()
					case "shrinks":
						os.Truncate(src, int64(transfer.MaxChunk+10))
					case "touched":
						later := time.Now().Add(time.Hour)
						os.Chtimes(src, later, later)
					}
				}
			}
			_, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
			if !errors.Is(serr, transfer.ErrSourceChanged) || !errors.Is(rerr, transfer.ErrSourceChanged) {
				t.Fatalf("send: %v; receive: %v; want ErrSourceChanged on both", serr, rerr)
			}
			t.Logf("sender: %v", serr)
			if n := listDir(t, p.r.cfg.Dir); len(n) != 0 {
				t.Errorf("a changed file appeared under its final name: %v", n)
			}
		})
	}
}

// TestManySmallFiles also checks that the receiver's confirmations, one
// per file, do not cost a socket write each.
func TestManySmallFiles(t *testing.T) {
	n := 10_000
	if testing.Short() || raceEnabled {
		n = 2_000
	}
	src := filepath.Join(t.TempDir(), "many")
	for i := range n {
		writeFile(t, filepath.Join(src, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%05d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)))
	}
	var rconn *secure.Conn
	p := newPair(t, t.Context(), ReceiverConfig{Policy: AcceptAll, hooks: &testhooks.Hooks{Secured: func(c any) { rconn = c.(*secure.Conn) }}})
	start := time.Now()
	ssum, serr, _, rerr := p.run(t.Context(), event.Item{Path: src})
	elapsed := time.Since(start)
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	writes := rconn.Stats().SocketWrites
	t.Logf("%d files in %v (%s); the receiver made %d socket writes, %.1f per 1,000 files",
		n, elapsed, ssum.Verdict, writes, 1000*float64(writes)/float64(n))
	t.Logf("sender %s over %v; receiver %s over %v", ssum.Local.Format(diag.SenderStages(), ssum.Wall), ssum.Wall, ssum.Remote.Format(diag.ReceiverStages(), ssum.RemoteWall), ssum.RemoteWall)
	if len(ssum.Entries) != n+51 {
		t.Errorf("%d entries confirmed, want %d", len(ssum.Entries), n+51)
	}
	// Tiny files move no bytes to speak of: the time goes to opening,
	// creating and renaming them, which no stage times, and neither end
	// waits on the link, so the verdict must not blame the network.
	if !strings.Contains(ssum.Verdict, "per-entry work") {
		t.Errorf("verdict %q, want per-entry work", ssum.Verdict)
	}
	sameTree(t, src, p.r.cfg.Dir)
	// Every file is confirmed, but confirmations share socket writes:
	// at most one flush per confirmBatch of them or per confirmDelay of
	// the time the transfer took, plus the few messages flushed at once
	// (hello, answer, done, end of stream). A write per file fails this.
	if limit := int64(n/confirmBatch) + int64(elapsed/confirmDelay) + 8; writes > limit {
		t.Errorf("%d socket writes for %d files, want at most %d", writes, n, limit)
	}
}

// The stage splits cover the transfer proper: a person who takes their
// time to accept leaves the receiver blocked in a socket read meanwhile,
// and that wait must not appear as a stage busy for longer than the
// transfer itself lasted (it did once: "socket read 206%").
func TestSplitsCoverTheTransferOnly(t *testing.T) {
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, pattern(3<<20, 7))
	p := newPair(t, t.Context(), ReceiverConfig{Policy: Ask, Diag: true})
	p.send.Diag = true
	p.rev.hook = func(ev event.Event) {
		if _, ok := ev.(event.Offer); ok {
			// The delay is the behaviour under test, not a synchronisation.
			time.AfterFunc(400*time.Millisecond, p.r.Accept)
		}
	}
	ssum, serr, rsum, rerr := p.run(t.Context(), event.Item{Path: src})
	if serr != nil || rerr != nil {
		t.Fatalf("send: %v; receive: %v", serr, rerr)
	}
	check := func(end string, sp diag.Split, wall time.Duration, stages []diag.Stage) {
		for _, st := range stages {
			if sp[st].Time > wall+wall/20 {
				t.Errorf("%s %s busy %v of a %v transfer", end, st, sp[st].Time, wall)
			}
		}
	}
	check("sender", ssum.Local, ssum.Wall, diag.SenderStages())
	check("receiver (as the sender heard it)", ssum.Remote, ssum.RemoteWall, diag.ReceiverStages())
	check("receiver", rsum.Local, rsum.Wall, diag.ReceiverStages())
}
