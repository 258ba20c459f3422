package app

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/trust"
)

// Config sets up a Node. The zero Config is a device with the user's
// own key, trust store and history, named after the host.
type Config struct {
	// Name is this device's name as peers see it; "" is DefaultName.
	Name string
	// ConfigDir is where the device's files live: its key (static.key),
	// its trust store (trusted.json) and its history (history.json).
	// "" is the user's config folder (core/secure's DefaultDir).
	ConfigDir string
	// NoHistory records no transfer.
	NoHistory bool
	// KeepHistory, when set, is asked as each transfer ends whether to
	// record it (an app's "Record new transfers" box, which a person
	// turns off and on while the Node lives). Nil records every one
	// (unless NoHistory).
	KeepHistory func() bool
	// PageFiles are the browser page's files (gui/page.Files), served by
	// a receiver with ReceiveConfig.Page. Nil serves no page: core does
	// not import the page, a front end hands it over.
	PageFiles fs.FS
	// Ifaces are the network interfaces to advertise on; nil is every
	// multicast-capable one.
	Ifaces []string
	// OnSkip is told of each interface that mDNS leaves out, and why.
	OnSkip func(iface string, err error)
	// Timeout is how long a peer may stay silent before a transfer fails;
	// 0 is core/transfer's default (30 s).
	Timeout time.Duration
	// OnWarning is told of a problem that costs a convenience, never a
	// transfer: a trust store or history that cannot be used or written,
	// an advertisement that failed, an interface skipped. It may be
	// called from any goroutine, never two at once. Nil drops them.
	OnWarning func(error)
	// Now is the clock for history records; nil is time.Now (tests).
	Now func() time.Time
	// StartedByPerson says a person started this process just now (a
	// command typed, an app opened by hand), not a service manager or a
	// start at login: the count of wrong codes, kept beside the trust
	// file (guesses.json) across restarts, then starts over, as a new
	// code does. Left false, the count carries on.
	StartedByPerson bool
}

// Node is a device running Ferry, for as long as it runs: its identity,
// its trust store and history, its receiver (one at a time, with the
// device's one guess budget) and its transfers. Make one per process
// with New and Close it at exit.
type Node struct {
	cfg   Config
	id    *secure.Identity
	trust *trust.Store   // nil: trusted devices are off (see Trust)
	hist  *history.Store // nil: nothing is recorded
	now   func() time.Time

	nextID atomic.Int64
	warnMu sync.Mutex
	nameMu sync.Mutex // guards cfg.Name, which SetName changes

	mu   sync.Mutex
	recv *Receiver // the receiver, while one runs
	// budget is the device's one guess budget (core/transfer's Budget,
	// kept by core/guess), made by the first receiver that takes
	// codes and handed to every one after it, so that stopping and
	// starting to receive keeps the count. A paired-only receiver never
	// opens it.
	budget *guess.Budget
	closed bool
}

// ErrClosed is the error of every command on a closed Node: the front
// end is shutting down, so its kind is errkind.Cancelled.
var ErrClosed = errkind.New(errkind.Cancelled, "ferry is shut down")

// New loads (or, the first time, creates) the device's key and opens its
// trust store and history. A trust store or history that cannot be used
// is a warning (OnWarning): transfers with a code still work.
func New(cfg Config) (*Node, error) {
	if cfg.Name == "" {
		cfg.Name = DefaultName()
	}
	n := &Node{cfg: cfg, now: cfg.Now}
	if n.now == nil {
		n.now = time.Now
	}
	id, err := secure.LoadOrCreateIdentity(cfg.ConfigDir)
	if err != nil {
		return nil, fmt.Errorf("loading this device's key: %w", err)
	}
	n.id = id
	n.trust = n.openTrust()
	if !cfg.NoHistory {
		n.hist = n.openHistory()
	}
	return n, nil
}

func (n *Node) path(name string, def func() (string, error)) (string, error) {
	if n.cfg.ConfigDir != "" {
		return filepath.Join(n.cfg.ConfigDir, name), nil
	}
	return def()
}

// openTrust opens the trust store, or warns and returns nil: a broken
// trust file is left as it is, and paired transfers are off until a
// person fixes it.
func (n *Node) openTrust() *trust.Store {
	path, err := n.path("trusted.json", trust.DefaultPath)
	if err != nil {
		n.warn(fmt.Errorf("trusted devices are off: finding the trust file: %w", err))
		return nil
	}
	s := trust.Open(path)
	if _, err := s.Devices(); err != nil {
		n.warn(fmt.Errorf("trusted devices are off: %w", err))
		return nil
	}
	return s
}

func (n *Node) openHistory() *history.Store {
	path, err := n.path("history.json", history.DefaultPath)
	if err != nil {
		n.warn(fmt.Errorf("the transfer history is off: %w", err))
		return nil
	}
	return history.Open(path)
}

// guessBudget is the device's guess budget, opened the first time a
// receiver needs it. Called with n.mu held.
func (n *Node) guessBudget() *guess.Budget {
	if n.budget != nil {
		return n.budget
	}
	bc := guess.Config{ByPerson: n.cfg.StartedByPerson, Warn: n.warn, Now: n.cfg.Now}
	if path, err := n.path("guesses.json", guess.DefaultPath); err != nil {
		n.warn(fmt.Errorf("the wrong-code count is kept in memory only: %w", err))
	} else {
		bc.Store = guess.OpenFile(path)
	}
	n.budget = guess.NewBudget(bc)
	return n.budget
}

// warn hands err to OnWarning, one at a time.
func (n *Node) warn(err error) {
	if n.cfg.OnWarning == nil || err == nil {
		return
	}
	n.warnMu.Lock()
	defer n.warnMu.Unlock()
	n.cfg.OnWarning(err)
}

// Name is this device's name as peers see it.
func (n *Node) Name() string {
	n.nameMu.Lock()
	defer n.nameMu.Unlock()
	return n.cfg.Name
}

// SetName renames the device (a person changed it in an app's
// settings): transfers started from now on, and the next receiver, use
// name; "" is DefaultName. A receiver already listening keeps the name
// it advertised until it is listened again.
func (n *Node) SetName(name string) {
	if name == "" {
		name = DefaultName()
	}
	n.nameMu.Lock()
	n.cfg.Name = name
	n.nameMu.Unlock()
}

// Identity is this device's long-term key. Only the CLI's send to a
// browser uses it, to call the engine itself until it sends through
// Send; a front end wants PublicKey or Fingerprint, which name no type
// of the engine's.
func (n *Node) Identity() *secure.Identity { return n.id }

// PublicKey is this device's long-term public key (32 bytes), as a
// peer pins it.
func (n *Node) PublicKey() []byte { return n.id.Public() }

// Fingerprint is the short form of this device's key.
func (n *Node) Fingerprint() string { return n.id.Fingerprint() }

// Close stops the receiver, if one runs (its transfer is cancelled).
// Transfers started with Send end with their contexts.
func (n *Node) Close() error {
	n.mu.Lock()
	n.closed = true
	r := n.recv
	n.mu.Unlock()
	if r != nil {
		return r.Close()
	}
	return nil
}

// DefaultName is the device name when none is set: the host name, or
// "ferry" when it has none.
func DefaultName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "ferry"
	}
	return h
}

// DefaultDir returns the folder a receiver saves into when none is set:
// core/platform's download folder, created when missing.
func DefaultDir() (string, error) {
	dir, err := platform.DownloadDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the download folder: %w", err)
	}
	return dir, nil
}
