// Package streamtune lets Ferry's benchmarks change how core/secure
// batches its socket writes and reads, to measure what the defaults buy.
//
// The knobs travel in the context given to core/secure's Client or
// Server, as core/internal/testhooks carries test hooks: they belong to
// that one connection, no package holds mutable global state, and
// core/secure's Config has no field that only benchmarks may set. Being
// internal to core/, only core's packages can import it: core/secure's
// own benchmarks, and core/internal/streambench, the program that
// benches/cmd/ferrybench runs for its stream and calls figures.
package streamtune

import "context"

// Knobs change one connection's stream. The zero value is the default.
type Knobs struct {
	// Batch is how many bytes of sealed records collect before a socket
	// write; 0 is the default (four full records), 1 writes each record
	// on its own.
	Batch int
	// Unbuffered makes the reader ask the socket for exactly the bytes
	// it needs (a length, then a body) instead of large blocks.
	Unbuffered bool
}

type key struct{}

// With returns ctx carrying k.
func With(ctx context.Context, k Knobs) context.Context {
	return context.WithValue(ctx, key{}, k)
}

// From returns the knobs ctx carries, or the zero value.
func From(ctx context.Context) Knobs {
	k, _ := ctx.Value(key{}).(Knobs)
	return k
}
