// Package testhooks lets core's own tests make one stage of a transfer
// slow on purpose, so that they can check that core/diag names it.
//
// A hook travels in the context given to core/secure's Client or Server,
// the way net/http/httptrace carries its hooks: it then belongs to that
// one connection, so two ends in one test process (or tests running side
// by side) never see each other's hooks, no package holds mutable global
// state, and no exported API of core/secure grows a field that only tests
// may set. Being internal, nothing outside core/ can import it. Without a
// hook in the context, the cost is one nil check per record.
package testhooks

import "context"

// Hooks are called from inside the call that a stage timer wraps, so a
// delay they add is measured by the real timing code.
type Hooks struct {
	// Seal runs inside core/secure's timed seal of one record, after the
	// record is sealed, with its plaintext length.
	Seal func(n int)
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
