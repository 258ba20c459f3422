//go:build unix

package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal that a person reads and
// types at: progress is drawn as a bar there, and questions are asked.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
