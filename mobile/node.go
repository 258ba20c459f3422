package mobile

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/memprofile"
	"github.com/ferry-project/ferry/core/app/nearby"
)

// Config sets up a Node. Create it with NewConfig (Kotlin: Config(),
// Swift: MobileConfig()) and fill in the fields.
type Config struct {
	// Name is this device's name as peers see it ("Zoë's phone").
	Name string
	// DataDir is an app-private folder where the device's files are kept
	// (Android: context.filesDir; iOS: Application Support): its
	// long-term key, which lets a trusted peer recognise it later, its
	// trusted devices, its transfer history and its count of wrong codes.
	DataDir string
	// TimeoutSeconds is how long a peer may stay silent before a
	// transfer fails with KindTimeout; 0 means core/transfer's default
	// (30 s).
	TimeoutSeconds int
	// StartedByPerson says the person opened the app just now (not the
	// system restarting it in the background, nor a restart the app made
	// itself): a receiver that stopped taking codes then takes them
	// again, as after Transfer.NewCode. The count of wrong codes, kept in
	// DataDir, goes on either way (no start resets it), and the codes are
	// longer after many ("code_longer" says why). Leave it false when
	// unsure: a receiver that stopped taking codes says so
	// ("codes_stopped") until the person asks for a new code.
	StartedByPerson bool

	// profile, set only by this package's tests, replaces the build's
	// memory profile (memprofile.Build).
	profile *memprofile.Profile
}

// NewConfig returns an empty Config.
func NewConfig() *Config { return &Config{} }

// Node is the app's handle on Ferry: a core/app Node (the device's
// identity, trusted devices, history and its one guess budget), its
// transfers and the peers it knows of. Make one per process with NewNode
// and Close it when the app no longer needs Ferry (or never: a Node at
// rest holds only its files and its peer list, and runs no goroutine).
type Node struct {
	cfg     Config
	app     *app.Node
	profile memprofile.Profile

	ctx    context.Context // cancelled by Close: every goroutine's parent
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the Node starts but out's
	out    *outbox        // every call into the app goes through it

	browseFn browseFunc // nearby.Browse; tests put a fake in its place

	// lastID is the last transfer's number: the Node numbers each as
	// core/app makes it, so a send and a receive of one sender keep the
	// numbers core/app's Send and Receive gave them, while a receive of
	// one has its number before its sender comes.
	lastID atomic.Int64

	mu        sync.Mutex
	closed    bool
	transfers map[*Transfer]int // each running transfer or receive, and the slots it holds
	peers     *nearby.List
	browsing  *browseRun // the running mDNS browse, if any
}

// NewNode loads (or on first use creates) the device key in cfg.DataDir
// and returns a Node that reports to events. The first NewNode in a
// process also applies the memory profile to the Go runtime (memory
// limit and GC percent; see the package doc).
func NewNode(cfg *Config, events Events) (_ *Node, err error) {
	defer guard("starting ferry", &err)
	switch {
	case cfg == nil:
		return nil, errors.New("starting ferry: no config")
	case events == nil:
		return nil, errors.New("starting ferry: no events listener")
	case strings.TrimSpace(cfg.Name) == "":
		return nil, errors.New("starting ferry: empty device name")
	case cfg.DataDir == "":
		return nil, errors.New("starting ferry: no data folder")
	}
	p := memprofile.Build
	if cfg.profile != nil {
		p = *cfg.profile
	}
	memprofile.Apply(p)
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{cfg: *cfg, profile: p, ctx: ctx, cancel: cancel, transfers: map[*Transfer]int{}, browseFn: nearby.Browse}
	n.peers = nearby.NewList(func() { n.out.peersChanged() })
	n.out = newOutbox(events, n.peersJSON)
	n.app, err = app.New(app.Config{
		Name: cfg.Name, ConfigDir: cfg.DataDir, StartedByPerson: cfg.StartedByPerson,
		Timeout: time.Duration(cfg.TimeoutSeconds) * time.Second, OnWarning: n.warn,
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("starting ferry: %w", err)
	}
	return n, nil
}

// Fingerprint is the short form of this device's key, as peers see it
// in their lists ("K7QX-M2PA-9RTE-WD4C"). Show it so a person can tell
// two devices of the same name apart.
func (n *Node) Fingerprint() string {
	defer quiet()
	return n.app.Fingerprint()
}

// Name is this device's name as configured.
func (n *Node) Name() string {
	defer quiet()
	return n.cfg.Name
}

// Close cancels every transfer (each still ends with an "error" event,
// kind KindCancelled), stops browsing and waits until every goroutine
// the Node started has returned and every Events call is made. A closed
// Node refuses every command.
//
// Close may be called from inside an Events callback. It then waits for
// everything but that callback: the calls still due (each transfer's
// last event) follow, on the same thread, once the callback returns.
func (n *Node) Close() (err error) {
	defer guard("closing ferry", &err)
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	ts := make([]*Transfer, 0, len(n.transfers))
	for t := range n.transfers {
		ts = append(ts, t)
	}
	n.mu.Unlock()
	for _, t := range ts {
		t.stop()
	}
	n.cancel()
	n.wg.Wait() // no goroutine posts to out from here on
	err = n.app.Close()
	n.out.close()
	if n.profile.FreeAfter {
		debug.FreeOSMemory()
	}
	return err
}

// begin makes count sending transfers under the profile's limit, with
// their one context (cancelled by Transfer.Cancel and Close), and
// reserves the goroutines that will wait for their ends (see run):
// reserving them under the lock that Close takes means Close never
// waits on a WaitGroup that is still growing. (A receive reserves its
// own: reserve.)
func (n *Node) begin(count int) ([]*Transfer, context.Context, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, nil, errClosed
	}
	if err := n.canTake(count); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancelCause(n.ctx)
	stop := cancel // one for them all: core/send's SendMany cancels together
	ts := make([]*Transfer, count)
	for i := range ts {
		ts[i] = &Transfer{n: n, sending: true, cancel: stop, id: n.lastID.Add(1)}
		n.transfers[ts[i]] = 1
		n.wg.Add(1)
	}
	return ts, ctx, nil
}

// canTake reports, under n.mu, whether count more slots fit in the
// profile's limit.
func (n *Node) canTake(count int) error {
	running := 0
	for _, slots := range n.transfers {
		running += slots
	}
	if running+count > n.profile.MaxTransfers {
		return fmt.Errorf("%w: %d running, %d more asked, at most %d on this device",
			errBusy, running, count, n.profile.MaxTransfers)
	}
	return nil
}

// abandon undoes begin for a transfer that never got to run.
func (n *Node) abandon(t *Transfer) {
	t.cancel(nil)
	n.wg.Done()
	n.end(t)
}

// end releases t's slot and, in the phone profiles, hands the memory the
// transfer used back to the OS.
func (n *Node) end(t *Transfer) {
	n.mu.Lock()
	delete(n.transfers, t)
	n.mu.Unlock()
	if n.profile.FreeAfter {
		debug.FreeOSMemory()
	}
}

// run runs fn on the goroutine reserved by begin (or by n.wg.Add under
// n.mu): Close waits for it, and a panic in it goes to onPanic, which
// tells the app, instead of killing the process.
func (n *Node) run(op string, fn func(), onPanic func(error)) {
	go func() {
		defer n.wg.Done()
		defer func() {
			if v := recover(); v != nil {
				defer func() { _ = recover() }() // onPanic is the last resort
				onPanic(panicError(op, v))
			}
		}()
		fn()
	}()
}

// isClosed reports whether Close has been called.
func (n *Node) isClosed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.closed
}

// emit queues a call into the app, from a goroutine the Node owns (see
// outbox.post): it waits only while the queue is full, and not at all
// once Close has begun.
func (n *Node) emit(call func(Events)) {
	n.out.post(n.ctx, call)
}
