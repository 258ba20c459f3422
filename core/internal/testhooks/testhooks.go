// Package testhooks lets core's own tests make one stage of a transfer
// slow on purpose, so that they can check that core/diag names it, look
// at a session's secure connection, hold a handshake at one step, and
// retire codes sooner.
//
// A sending end's hooks travel in the context given to core/send
// (and from there to core/secure's Client), a receiving end's in an
// unexported field of core/receive's ReceiverConfig, which that
// package's tests set. In the context,
// the way net/http/httptrace carries its hooks, a hook belongs to that
// one connection, so two ends in one test process (or tests running side
// by side) never see each other's hooks, no package holds mutable global
// state, and no exported API of core/secure grows a field that only tests
// may set. Being internal, nothing outside core/ can import it. Without a
// hook in the context, the cost is one nil check per record.
package testhooks

import (
	"context"
	"io"
	"time"
)

// Hooks are called from inside the call that a stage timer wraps, so a
// delay they add is measured by the real timing code.
type Hooks struct {
	// Seal runs inside core/secure's timed seal of one record, after the
	// record is sealed, with its plaintext length.
	Seal func(n int)

	// DiskRead wraps each source file as the sender reads its chunks,
	// and DiskWrite each partial file as the receiver writes them: both
	// inside the call the disk timers wrap.
	DiskRead  func(io.Reader) io.Reader
	DiskWrite func(io.Writer) io.Writer
	// Secured is given each end's connection once the handshake is
	// done (a *secure.Conn; any, so that this package stays a leaf).
	Secured func(any)
	// Admitted is told, from the receiver's accept loop, how many
	// connections are pending once it admitted one.
	Admitted func(pending int)
	// Now replaces time.Now for the limit on Refused events.
	Now func() time.Time
	// Checked is told of every guess checked, under the lock that
	// counts it (the budget's clock is guess.Config.Now).
	Checked func(at time.Time, right bool)
	// Guessing is told when a handshake's message 3 arrived, before its
	// guess is checked: a test holds a handshake there.
	Guessing func()
	// Attempts, when above 0, replaces the number of wrong codes that
	// retire the current one (MaxAttempts).
	Attempts int
}

// MaxAttempts is how many wrong codes retire the current code: def but
// in the tests that set Attempts.
func (h *Hooks) MaxAttempts(def int) int {
	if h != nil && h.Attempts > 0 {
		return h.Attempts
	}
	return def
}

// Reader is r as the sender reads it: r but under DiskRead.
func (h *Hooks) Reader(r io.Reader) io.Reader {
	if h == nil || h.DiskRead == nil {
		return r
	}
	return h.DiskRead(r)
}

// Writer is w as the receiver writes it: w but under DiskWrite.
func (h *Hooks) Writer(w io.Writer) io.Writer {
	if h == nil || h.DiskWrite == nil {
		return w
	}
	return h.DiskWrite(w)
}

// OnAdmitted tells Admitted, if set.
func (h *Hooks) OnAdmitted(n int) {
	if h != nil && h.Admitted != nil {
		h.Admitted(n)
	}
}

// Clock is time.Now but in the tests that set Now.
func (h *Hooks) Clock() time.Time {
	if h != nil && h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// OnSecured tells Secured, if set.
func (h *Hooks) OnSecured(c any) {
	if h != nil && h.Secured != nil {
		h.Secured(c)
	}
}

// OnGuessing tells Guessing, if set.
func (h *Hooks) OnGuessing() {
	if h != nil && h.Guessing != nil {
		h.Guessing()
	}
}

// OnChecked tells Checked, if set.
func (h *Hooks) OnChecked(at time.Time, right bool) {
	if h != nil && h.Checked != nil {
		h.Checked(at, right)
	}
}

type key struct{}

// With returns ctx carrying h.
func With(ctx context.Context, h *Hooks) context.Context {
	return context.WithValue(ctx, key{}, h)
}

// From returns the hooks ctx carries, or nil.
func From(ctx context.Context) *Hooks {
	h, _ := ctx.Value(key{}).(*Hooks)
	return h
}
