//go:build !js

// What a Node keeps on disk: its key, its trust store, its history and
// its count of wrong codes. The page's js/wasm build has no disk and
// none of these (nodisk_js.go).

package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/platform"
	"github.com/ferry-project/ferry/core/secure"
)

// disk is a Node's trust store, history, receiver and guess budget.
type disk struct {
	trust *stores.Trust   // nil: trusted devices are off (see Trust)
	hist  *stores.History // nil: nothing is recorded
	// rec is hist's file as record adds to it: one store for the Node's
	// life, which knows the file it last wrote. warmed is closed once
	// the goroutine New starts has checked the file whole, so that the
	// end of a transfer does not decode every record (core/history's
	// Warm); record and Close wait for it.
	rec    *history.Store
	warmed chan struct{}
	recv   *Receiver // the receiver, while one runs
	// budget is the device's one guess budget (core/transfer's Budget,
	// kept by core/guess), made by the first receiver that takes
	// codes and handed to every one after it, so that stopping and
	// starting to receive keeps the count. A paired-only receiver never
	// opens it.
	budget *guess.Budget
}

// New loads (or, the first time, creates) the device's key and opens its
// trust store and history. A trust store or history that cannot be used
// is a warning (OnWarning): transfers with a code still work.
func New(cfg Config) (*Node, error) {
	id, err := secure.LoadOrCreateIdentity(cfg.ConfigDir)
	if err != nil {
		return nil, fmt.Errorf("loading this device's key: %w", err)
	}
	n := baseNode(cfg, id)
	n.trust = n.openTrust()
	if !cfg.NoHistory {
		n.hist = n.openHistory()
	}
	if n.hist != nil {
		n.rec = history.Open(n.hist.Path())
		n.warmed = make(chan struct{})
		go func() {
			defer close(n.warmed)
			n.rec.Warm()
		}()
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
func (n *Node) openTrust() *stores.Trust {
	s, err := stores.OpenTrust(n.cfg.ConfigDir)
	if err != nil {
		n.warn(fmt.Errorf("trusted devices are off: %w", err))
		return nil
	}
	if _, err := s.Devices(); err != nil {
		n.warn(fmt.Errorf("trusted devices are off: %w", err))
		return nil
	}
	return s.WithClock(n.now)
}

func (n *Node) openHistory() *stores.History {
	h, err := stores.OpenHistory(n.cfg.ConfigDir)
	if err != nil {
		n.warn(fmt.Errorf("the transfer history is off: %w", err))
		return nil
	}
	return h
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

// Close stops the receiver, if one runs (its transfer is cancelled).
// Transfers started with Send end with their contexts.
func (n *Node) Close() error {
	n.mu.Lock()
	n.closed = true
	r := n.recv
	n.mu.Unlock()
	var err error
	if r != nil {
		err = r.Close()
	}
	if n.warmed != nil {
		<-n.warmed
	}
	return err
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
