// Package xvfb holds the tests that start the real bin/ferry-gui on a
// virtual X server: one checks that each view renders and keeps the
// captures in gui/screenshots; one runs the app as a file manager does
// (the desktop entry's Exec line, the scripts, a second ferry-gui) and
// checks its Send list and the real X clipboard. It has no code of its own: the test runs a built
// binary, so it needs no cgo itself.
package xvfb
