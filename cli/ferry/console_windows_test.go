//go:build windows

package main

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// TestMinttyPipe: a pipe named the way MSYS2 and Cygwin name a pty's is
// a terminal; another pipe is not. tests/wine_test.go runs it under Wine.
func TestMinttyPipe(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{`\\.\pipe\msys-1888ae32e00d56aa-pty0-to-master`, true},
		{`\\.\pipe\cygwin-e022582115c10879-pty3-from-master`, true},
		{`\\.\pipe\ferry-test-not-a-pty`, false},
	} {
		name, err := windows.UTF16PtrFromString(c.name)
		if err != nil {
			t.Fatal(err)
		}
		server, err := windows.CreateNamedPipe(name, windows.PIPE_ACCESS_DUPLEX, windows.PIPE_TYPE_BYTE, 1, 512, 512, 0, nil)
		if err != nil {
			t.Fatalf("creating %s: %v", c.name, err)
		}
		client, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, 0, 0)
		if err != nil {
			windows.CloseHandle(server)
			t.Fatalf("opening %s: %v", c.name, err)
		}
		f := os.NewFile(uintptr(client), c.name)
		if got := isTerminal(f); got != c.want {
			t.Errorf("isTerminal(%s) = %v, want %v", c.name, got, c.want)
		}
		f.Close()
		windows.CloseHandle(server)
	}
}
