// Package xvfb holds the test that starts the real bin/ferry-gui on a
// virtual X server, checks that each view renders, and keeps the captures
// in gui/screenshots. It has no code of its own: the test runs a built
// binary, so it needs no cgo itself.
package xvfb
