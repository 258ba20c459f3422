//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/tests/proc"
)

// TestE2EHistorySendToSeveral: one "ferry send" to three real receivers
// on loopback (one accepts, one declines, one is given a wrong code)
// leaves three records in the sender's history, one per receiver, each
// with that receiver's name, address and outcome.
func TestE2EHistorySendToSeveral(t *testing.T) {
	home := t.TempDir()
	src := writeTree(t)
	start := func(name, code string, extra ...string) (*proc.Proc, string) {
		args := append([]string{"receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json",
			"--name", name, "--code", code, "--dir", t.TempDir()}, extra...)
		r := proc.Start(t, asHome(t, t.TempDir(), args...), true)
		return r, "127.0.0.1:" + jsonPort(r.Until("listening", 20*time.Second))
	}
	r1, a1 := start("desk", "111111", "--yes")
	r2, a2 := start("tablet", "222222") // no --yes, no terminal: declines
	r3, a3 := start("attic", "333333", "--yes")
	if _, stderr, code := proc.Run(t, asHome(t, home, "send", "--quiet", "--name", "laptop",
		"--to", a1, "--to", a2, "--to", a3, "--code", "111111", "--code", "222222", "--code", "999999", src)); code == exitOK {
		t.Fatalf("send to several with a decline and a wrong code: exit 0; stderr:\n%s", stderr)
	}
	for i, r := range []*proc.Proc{r1, r2} {
		if c, want := r.Exit(20*time.Second), []int{exitOK, exitDeclined}[i]; c != want {
			t.Errorf("receiver %d exit %d, want %d", i+1, c, want)
		}
	}
	r3.Signal(os.Interrupt) // a wrong code leaves it listening
	recs := historyOf(t, home)
	if len(recs) != 3 {
		t.Fatalf("sender history has %d records, want one per receiver: %+v", len(recs), recs)
	}
	got := map[string]event.History{}
	for _, r := range recs {
		got[r.PeerAddr] = r
	}
	want := []struct{ addr, name, outcome, kind string }{
		{a1, "desk", "verified", ""},
		{a2, "tablet", "declined", ""},
		{a3, "", "failed", "wrong_code"},
	}
	for _, w := range want {
		r, ok := got[w.addr]
		switch {
		case !ok:
			t.Errorf("no record for %s: %+v", w.addr, recs)
		case r.Direction != "sent" || r.Outcome != w.outcome || r.ErrorKind != w.kind || r.PeerName != w.name:
			t.Errorf("record for %s (%s): %+v, want outcome %s kind %q", w.addr, w.name, r, w.outcome, w.kind)
		case len(r.Paths) != 1 || r.Paths[0] != src || r.Folder != filepath.Dir(src):
			t.Errorf("record for %s: paths %v folder %q, want %s", w.addr, r.Paths, r.Folder, src)
		}
	}
	if d := got[a1]; d.Files != 2 || d.Names[0] != filepath.Base(src) {
		t.Errorf("the verified record does not say what went: %+v", d)
	}
}
