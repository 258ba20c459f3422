//go:build windows

package main

import "errors"

// mkfifo: Windows has no named pipes in the file system, so the test
// that needs one cannot run there.
func mkfifo(path string) error { return errors.New("no named pipes in the file system on windows") }
