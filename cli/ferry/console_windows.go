//go:build windows

package main

import (
	"os"
	"regexp"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal that a person reads and
// types at: progress is drawn as a bar there, and questions are asked.
// On Windows that is a console (cmd, PowerShell, Windows Terminal:
// GetConsoleMode succeeds), or the pseudo-terminal of Git Bash, MSYS2 or
// Cygwin in mintty, which reaches the program as a named pipe with a
// telling name rather than as a console. Both take the carriage return
// the bar redraws with; neither needs escape sequences.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd())) || isMinttyPipe(windows.Handle(f.Fd()))
}

// minttyPipe is the name Cygwin and MSYS2 give the pipes of a pty:
// \msys-<16 hex>-pty<n>-(from|to)-master, or cygwin- instead of msys-.
var minttyPipe = regexp.MustCompile(`^\\(cygwin|msys)-[0-9a-f]{16}-pty[0-9]+-(from|to)-master`)

func isMinttyPipe(h windows.Handle) bool {
	if t, err := windows.GetFileType(h); err != nil || t != windows.FILE_TYPE_PIPE {
		return false
	}
	// FILE_NAME_INFO: a uint32 length in bytes, then the UTF-16 name.
	var buf [4 + 2*windows.MAX_PATH]byte
	if err := windows.GetFileInformationByHandleEx(h, windows.FileNameInfo, &buf[0], uint32(len(buf))); err != nil {
		return false
	}
	n := *(*uint32)(unsafe.Pointer(&buf[0])) / 2
	if n == 0 || int(n) > windows.MAX_PATH {
		return false
	}
	name := unsafe.Slice((*uint16)(unsafe.Pointer(&buf[4])), n)
	return minttyPipe.MatchString(string(utf16.Decode(name)))
}
