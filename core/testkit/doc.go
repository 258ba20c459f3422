// Package testkit holds the helpers that Ferry's tests share: goroutine
// leak checks, tree writing and comparison, a TCP proxy that tampers with
// what it relays, and sparse files. It is imported only by _test.go files
// and by test helper packages (tests/...), never by a package that a
// release binary links; `make lint` checks that cli/ferry and
// gui/ferry-gui do not depend on it.
//
// It imports nothing of Ferry's, so that every package, core/secure
// included, can use it from its internal tests without an import cycle.
// Helpers that need a Ferry type live in subpackages (testid for
// identities).
//
// Every helper takes a testing.TB and reports through it: a failure names
// what differed and where, and a helper that cannot set up (a file it
// cannot write, a port it cannot listen on) stops the test with the
// reason.
package testkit
