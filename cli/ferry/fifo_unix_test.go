//go:build unix

package main

import "syscall"

// mkfifo makes a named pipe, a path that is neither a file nor a folder.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
