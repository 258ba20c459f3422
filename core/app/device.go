package app

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-project/ferry/core/errkind"
	"github.com/ferry-project/ferry/core/secure"
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
	// Key, for NewInMemory, is the device's private key (32 bytes) kept
	// from an earlier life: the browser page keeps its key for a
	// receiver in its origin's storage, so that after a reload it is the
	// same sender and its cut send resumes. Nil makes a fresh key. New
	// ignores it: its key is the one in ConfigDir.
	Key []byte
	// StartedByPerson says a person started this process just now (a
	// command typed, an app opened by hand), not a service manager or a
	// start at login: a stop of the guess budget (kept beside the trust
	// file, guesses.json, across restarts and processes) is then lifted,
	// as a new code lifts it; the count goes on either way (core/guess).
	StartedByPerson bool
}

// Node is a device running Ferry, for as long as it runs: its identity,
// its trust store and history, its receiver (one at a time, with the
// device's one guess budget) and its transfers. Make one per process
// with New and Close it at exit; a browser page makes one with
// NewInMemory, which keeps nothing on disk.
type Node struct {
	cfg Config
	id  *secure.Identity
	now func() time.Time
	// memory says the Node keeps nothing on disk (NewInMemory).
	memory bool
	// disk is the trust store, the history, the receiver and the
	// guess budget: none in the page's js/wasm build (nodisk_js.go).
	// Its receiver and budget are guarded by mu.
	disk

	nextID atomic.Int64
	warnMu sync.Mutex
	nameMu sync.Mutex // guards cfg.Name, which SetName changes

	mu     sync.Mutex
	closed bool
}

// ErrClosed is the error of every command on a closed Node: the front
// end is shutting down, so its kind is errkind.Cancelled.
var ErrClosed = errkind.New(errkind.Cancelled, "ferry is shut down")

// baseNode is the Node of cfg with key id, before any store is opened.
func baseNode(cfg Config, id *secure.Identity) *Node {
	if cfg.Name == "" {
		cfg.Name = DefaultName()
	}
	n := &Node{cfg: cfg, id: id, now: cfg.Now}
	if n.now == nil {
		n.now = time.Now
	}
	return n
}

// NewInMemory makes a Node that keeps nothing on disk, the browser
// page's (one per page load): cfg.Key, or a key made now and kept only
// while the Node lives, no trust store (a sender without a code is refused), no
// history and no count of wrong codes beyond each receive's own. It
// sends (Send) and receives over a connection it opened
// (ReceiveFrom); it does not Listen, which keeps a count on disk.
func NewInMemory(cfg Config) (*Node, error) {
	var id *secure.Identity
	var err error
	if cfg.Key != nil {
		id, err = secure.IdentityFromPrivate(cfg.Key)
	} else {
		id, err = secure.NewIdentity()
	}
	if err != nil {
		return nil, fmt.Errorf("making this device's key: %w", err)
	}
	n := baseNode(cfg, id)
	n.memory = true
	return n, nil
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

// DefaultName is the device name when none is set: the host name, or
// "ferry" when it has none.
func DefaultName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "ferry"
	}
	return h
}
