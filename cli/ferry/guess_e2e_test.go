package main

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/proc"
)

// `ferry receive --keep` with a code it picked: after a transfer the
// code is used up, a new one is shown (code_changed, reason used), the
// old one is refused and the new one works.
func TestE2EKeepRotatesCode(t *testing.T) {
	r := proc.Start(t, ferryCmd(t, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json", "--keep", "--yes", "--dir", t.TempDir()), true)
	ev := r.Until("listening", 20*time.Second)
	first, _ := ev["code"].(string)
	addr := "127.0.0.1:" + strconv.Itoa(int(ev["port"].(float64)))
	if _, stderr, code := sendRun(t, "--to", addr, "--code", first, "--text", "one"); code != exitOK {
		t.Fatalf("first send: exit %d\n%s", code, stderr)
	}
	changed := r.Until("code_changed", 20*time.Second)
	second, _ := changed["code"].(string)
	if changed["reason"] != "used" || second == "" || second == first {
		t.Fatalf("code_changed after the transfer: %v (first code %s)", changed, first)
	}
	r.Until("done", 20*time.Second)
	if _, stderr, code := sendRun(t, "--to", addr, "--code", first, "--text", "again"); code != exitWrong {
		t.Fatalf("the used code: exit %d, want %d\n%s", code, exitWrong, stderr)
	}
	if _, stderr, code := sendRun(t, "--to", addr, "--code", second, "--text", "two"); code != exitOK {
		t.Fatalf("the new code: exit %d\n%s", code, stderr)
	}
	r.Signal(os.Interrupt)
	if c := r.Exit(20 * time.Second); c != exitOK {
		t.Errorf("receiver exit %d after an interrupt", c)
	}
}
