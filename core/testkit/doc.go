// Package testkit holds the helpers that Ferry's tests share: goroutine
// leak checks, tree writing and comparison, a TCP proxy that tampers with
// what it relays, and sparse files. Its subpackages hold the rest: testid
// (identities), netns (private networks in Linux network namespaces) and
// xdisplay (a private X server).
//
// It lives under core because core's own tests use it, and nothing
// under core may import tests/; the end-to-end tests (tests/...) and the
// front ends' tests build on it from here. It is imported only by
// _test.go files and by test helper packages, never by a package that a
// release binary links; `make lint` checks both: that cli/ferry,
// gui/ferry-gui and mobile do not depend on it, and that no core
// package's tests import tests/.
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
