package app

import (
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// The engine's limits that a front end checks before it asks (a flag's
// range, a text too long to send), so that it words them without naming
// the engine.
const (
	// MaxTextBytes is the largest text snippet a transfer takes.
	MaxTextBytes = transfer.MaxTextBytes
	// MaxConcurrentLimit is the most senders a receiver takes at once
	// (ListenConfig's and ReceiveMany's limit).
	MaxConcurrentLimit = receive.MaxConcurrentLimit
	// MaxListenerGuesses is how many page connections that could test a
	// link's code a send waiting for a page allows (SendConfig.Listener).
	MaxListenerGuesses = send.MaxListenerGuesses
)

// The sentinel errors a front end branches on, the engine's own values:
// errors.Is matches an error from core/app against either name.
var (
	// ErrDeclined: the receiver (or a person on it) declined the offer.
	ErrDeclined = transfer.ErrDeclined
	// ErrCancelled: a person, or the other end, cancelled the transfer.
	ErrCancelled = transfer.ErrCancelled
	// ErrCodesStopped: the guess budget is spent; no code is checked
	// until a person asks for a new one.
	ErrCodesStopped = transfer.ErrCodesStopped
)

// ManyStats are what a send to several devices did as a whole (Many's
// Wait).
type ManyStats struct {
	// DiskRead is every byte read from the sources for sending (not
	// counting the hashes of files a receiver may already have, or the
	// prefix of a resumed one, which each session reads itself): the
	// devices shared one read of each file.
	DiskRead int64
}
