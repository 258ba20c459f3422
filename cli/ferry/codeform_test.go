package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-project/ferry/core/app/event"
)

// TestBadCodeNotDialled: a code of the wrong form is a usage error with
// its own kind, found before anything is dialled: the listener at --to
// sees no connection. The receiver refuses to take such a code too.
func TestBadCodeNotDialled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dialled atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			c.Close()
		}
	}()
	file := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(file, []byte("x"), 0o644)

	for _, args := range [][]string{
		{"send", "--json", "--to", ln.Addr().String(), "--code", "abc", file},
		{"receive", "--json", "--no-mdns", "--listen", "127.0.0.1:0", "--code", "abc", "--dir", t.TempDir()},
	} {
		e, stdout, stderr := testEnv(t)
		if code := run(context.Background(), args, e); code != exitUsage {
			t.Fatalf("%s: exit %d, want %d; stderr:\n%s", args[0], code, exitUsage, stderr)
		}
		var ev event.Error
		if err := json.Unmarshal(stdout.Bytes(), &ev); err != nil {
			t.Fatalf("%s: stdout is not one event: %v\n%s", args[0], err, stdout)
		}
		if ev.Kind != "bad_code" || !strings.Contains(ev.Message, `bad --code "abc": too short`) || !strings.Contains(ev.Hint, "like 123456") {
			t.Errorf("%s: error event %+v", args[0], ev)
		}
		checkStderr(t, stderr.String(), true)
	}
	if n := dialled.Load(); n != 0 {
		t.Errorf("the sender dialled %d times with a code of the wrong form", n)
	}
}
