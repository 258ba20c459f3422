// Package benches measures Ferry in the build that ships, and only there.
//
// Every speed figure is a ratio against a baseline measured in the same
// process or the same run of the harness, interleaved, over several
// repetitions (see /work/shared/MEASURING.md and README.md here). The
// package holds what the figures share: the build guard that refuses to
// report from a -race or -N -l build (the harness applies it to itself,
// to bin/ferry and to the test binaries it runs), the record
// microbenchmarks (used both by `go test -bench` and by the harness
// through testing.Benchmark), an in-memory socket for them, the payload
// bytes every figure moves, and the statistics and tables the report
// prints.
//
// The harness itself is benches/cmd/ferrybench; `make bench` and `make
// bench-quick` run it. Under `make test` only unit tests run here: the
// guard, the statistics, and the harness's own process runner and
// parsers; no benchmark.
package benches
