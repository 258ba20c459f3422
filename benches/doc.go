// Package benches measures Ferry in the build that ships, and only there.
//
// Every speed figure is a ratio against a baseline measured in the same
// process or the same run of the harness, interleaved, over several
// repetitions (see /work/shared/MEASURING.md and README.md here). The
// package holds what the figures share: the build guard that refuses to
// report from a -race or -N -l build, the record microbenchmarks (used both
// by `go test -bench` and by the harness through testing.Benchmark), an
// in-memory socket for them, the payload bytes every figure moves, and
// the statistics and tables the report prints.
//
// The harness itself is benches/cmd/ferrybench; `make bench` runs it.
// Nothing here runs under `make test` except the guard's unit test.
package benches
