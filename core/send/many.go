package send

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/dial"
	"github.com/ferry-project/ferry/core/fanout"
	"github.com/ferry-project/ferry/core/transfer"
)

// Defaults of ManyConfig.
const (
	defaultGather = 10 * time.Second
	defaultWindow = 4 << 20
)

// ManyConfig is one send of the same items to several receivers.
type ManyConfig struct {
	Items []event.Item
	// To has one SendConfig per receiver: its address, its code or
	// PeerKey, and Identity, Name, Diag, Timeout, Dialer as for Send.
	// Their Items and OnEvent are not used: Items above is sent to each,
	// OnEvent below is told.
	To []SendConfig
	// OnEvent is told every receiver's events with the receiver's index
	// in To. Calls are in order for each receiver and never concurrent,
	// across receivers too; a handler must not block for long, since
	// every session waits for it.
	OnEvent func(to int, ev event.Event)
	// Gather is how long a receiver that accepted waits for the others
	// to accept, decline or fail before its files start (default
	// 10 s; negative: not at all). Files read together are read
	// once; a receiver that accepts later is sent the files all the same,
	// read again for it where the others are past them.
	Gather time.Duration
	// Window is how many bytes of recently read file chunks the sessions
	// share (default 4 MiB). A receiver that falls further behind
	// the fastest reads the rest of the file on its own.
	Window int
}

// ManyResult is one receiver's outcome.
type ManyResult struct {
	Addr    string        // the first of the receiver's Addrs
	Summary event.Summary // when Err is nil
	Err     error         // as Send's
	// ReadAgain is how many bytes were read from disk for this receiver
	// alone: it fell behind the shared window, or accepted after the
	// others were past a file. 0 means every byte it was sent came from
	// a read shared with the others (or from the one read there was).
	ReadAgain int64
}

// ManyStats says how often the files were read.
type ManyStats struct {
	// DiskRead is every byte read from the sources for sending (not
	// counting the hashes of files a receiver may already have, or the
	// prefix of a resumed one, which each session reads itself).
	DiskRead int64
}

// SendMany sends cfg.Items to every receiver in cfg.To at once, each in a
// session of its own (its own connection, handshake, code or pin, accept,
// events and result), and returns when every session has ended. A
// session that is declined, fails or is slow never stops the others:
// they share file reads through a window that waits for no one (see
// core/fanout). Cancelling ctx cancels every session. The results are in the
// order of cfg.To.
//
// With one receiver (Send) nothing is shared: its session runs on the
// caller's goroutine, reads cfg.Items as they are, and waits at no
// start line.
func SendMany(ctx context.Context, cfg ManyConfig) ([]ManyResult, ManyStats) {
	n := len(cfg.To)
	if n == 1 {
		sc := cfg.To[0]
		sc.Items, sc.OnEvent = cfg.Items, nil
		if on := cfg.OnEvent; on != nil {
			sc.OnEvent = func(ev event.Event) { on(0, ev) }
		}
		var read atomic.Int64
		sum, err := sendOne(ctx, sc, &read)
		return []ManyResult{{Addr: dial.FirstAddr(sc.Addrs), Summary: sum, Err: err}}, ManyStats{DiskRead: read.Load()}
	}
	window := cfg.Window
	if window <= 0 {
		window = defaultWindow
	}
	gather := cfg.Gather
	if gather == 0 {
		gather = defaultGather
	}
	hub := fanout.New(window, transfer.MaxChunk, n)
	line := newStartLine(n, gather)
	results := make([]ManyResult, n)
	on := serialized(cfg.OnEvent)
	var wg sync.WaitGroup
	for i := range cfg.To {
		sc := cfg.To[i]
		sc.Items = shareItems(cfg.Items, hub, i)
		sc.OnEvent = func(ev event.Event) { on(i, ev) }
		sc.gate = &gate{line: line}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sc.gate.arrive()
			sum, err := session(ctx, sc)
			hub.Leave(i)
			results[i] = ManyResult{Addr: dial.FirstAddr(sc.Addrs), Summary: sum, Err: err, ReadAgain: hub.Again(i)}
		}()
	}
	wg.Wait()
	hub.Close()
	return results, ManyStats{DiskRead: hub.Read()}
}

// sendOne is SendMany's session for one receiver, cfg, with cfg.Items:
// a session that shares nothing, so that it reads every byte once, as it
// goes, counted in read when read is not nil.
func sendOne(ctx context.Context, cfg SendConfig, read *atomic.Int64) (event.Summary, error) {
	cfg.read = read
	return session(ctx, cfg)
}

// serialized calls f (when set) one event at a time, across sessions.
func serialized(f func(int, event.Event)) func(int, event.Event) {
	var mu sync.Mutex
	return func(i int, ev event.Event) {
		if f == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		f(i, ev)
	}
}

// startLine holds the sessions that accepted until every session has
// answered (accepted, been declined, or failed), or for at most gather,
// so that they read the files together.
type startLine struct {
	mu      sync.Mutex
	pending int
	all     chan struct{} // closed when pending reaches 0
	gather  time.Duration
}

func newStartLine(n int, gather time.Duration) *startLine {
	l := &startLine{pending: n, all: make(chan struct{}), gather: gather}
	if n == 0 {
		close(l.all)
	}
	return l
}

// gate is one session's place on the start line.
type gate struct {
	line *startLine
	once sync.Once
}

// arrive says this session answered; only its first call counts.
func (g *gate) arrive() {
	g.once.Do(func() {
		g.line.mu.Lock()
		defer g.line.mu.Unlock()
		if g.line.pending--; g.line.pending == 0 {
			close(g.line.all)
		}
	})
}

// wait, on a session that accepted, holds it until the line is complete
// or gather has passed, sending keepalives (every, when quiet) so that
// the receiver does not time it out. A nil gate (Send) does not wait.
func (g *gate) wait(ctx context.Context, keepalive func() error, every time.Duration) error {
	if g == nil {
		return nil
	}
	g.arrive()
	if g.line.gather < 0 {
		return nil
	}
	deadline := time.NewTimer(g.line.gather)
	defer deadline.Stop()
	tick := time.NewTicker(max(every/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-g.line.all:
			return nil
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
			if err := keepalive(); err != nil {
				return err
			}
		}
	}
}

// shareItems gives one session its items, each file or folder read
// through that session's view of a fan-out source: the item's own FS, or
// for an item on the OS disk, os.DirFS of its parent folder (as
// buildManifest does). Source k is the k-th item in every session, so
// the sessions' views of it share their reads. An item that cannot be
// resolved is left as it is: Send reports it.
func shareItems(items []event.Item, hub *fanout.Hub, session int) []event.Item {
	out := make([]event.Item, len(items))
	for k, it := range items {
		out[k] = it
		if it.Path == "" {
			continue // a text
		}
		under, p := it.FS, it.Path
		if under == nil {
			abs, err := filepath.Abs(it.Path)
			if err != nil {
				continue
			}
			dir, base := filepath.Split(abs)
			if base == "" || !fs.ValidPath(base) {
				continue
			}
			under, p = os.DirFS(dir), base
		}
		out[k].FS, out[k].Path = hub.View(session, k, under), p
	}
	return out
}
