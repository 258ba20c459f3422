//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/tests/proc"
)

// historyOf runs "ferry history --json" as the device whose home is home
// and returns its events, newest first.
func historyOf(t *testing.T, home string) []event.History {
	t.Helper()
	out, stderr, code := proc.Run(t, asHome(t, home, "history", "--json", "--limit", "0"))
	if code != exitOK {
		t.Fatalf("ferry history: exit %d; stderr:\n%s", code, stderr)
	}
	var evs []event.History
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var ev event.History
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("history line %q: %v", l, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestE2EHistory: two real processes over loopback, a wrong code and
// then a transfer that works; "ferry history --json" on each device
// afterwards shows both ends, with the peer each handshake proved, what
// went, where it went, and the outcome. A third send with --no-history
// adds nothing.
func TestE2EHistory(t *testing.T) {
	deskHome, laptopHome := t.TempDir(), t.TempDir()
	dest := t.TempDir()
	src := writeTree(t)
	recv := proc.Start(t, asHome(t, deskHome, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json",
		"--name", "desk", "--code", "246810", "--yes", "--dir", dest), true)
	ev := recv.Until("listening", 20*time.Second)
	addr := "127.0.0.1:" + jsonPort(ev)
	deskFP := ev["fingerprint"].(string)

	if _, stderr, code := proc.Run(t, asHome(t, laptopHome, "send", "--to", addr, "--code", "000000", "--name", "laptop", "--quiet", src)); code != exitWrong {
		t.Fatalf("wrong code: exit %d; stderr:\n%s", code, stderr)
	}
	if _, stderr, code := proc.Run(t, asHome(t, laptopHome, "send", "--to", addr, "--code", "246810", "--name", "laptop", "--text", "hi", src)); code != exitOK {
		t.Fatalf("send: exit %d; stderr:\n%s", code, stderr)
	}
	if c := recv.Exit(20 * time.Second); c != exitOK {
		t.Fatalf("receive: exit %d; stderr:\n%s", c, recv.StderrText())
	}
	if _, _, code := proc.Run(t, asHome(t, laptopHome, "send", "--no-history", "--to", addr, "--code", "246810", "--quiet", src)); code == exitOK {
		t.Fatal("a send to a receiver that exited worked")
	}

	sent := historyOf(t, laptopHome)
	if len(sent) != 2 {
		t.Fatalf("sender history has %d records, want 2 (the --no-history send left out): %+v", len(sent), sent)
	}
	ok, wrong := sent[0], sent[1]
	if wrong.Direction != "sent" || wrong.Outcome != "failed" || wrong.ErrorKind != "wrong_code" || wrong.PeerAddr != addr {
		t.Errorf("wrong-code record: %+v", wrong)
	}
	top := filepath.Base(src)
	if ok.Direction != "sent" || ok.Outcome != "verified" || ok.PeerName != "desk" || ok.PeerFingerprint != deskFP ||
		ok.Auth != "code" || ok.Files != 2 || ok.Texts != 1 || ok.Bytes != 1200000+17+2 ||
		len(ok.Names) != 2 || ok.Names[0] != top || ok.Folder != filepath.Dir(src) || len(ok.Paths) != 1 || ok.Paths[0] != src {
		t.Errorf("sender's record: %+v", ok)
	}

	got := historyOf(t, deskHome)
	if len(got) != 1 {
		t.Fatalf("receiver history has %d records, want 1 (a wrong code is no transfer): %+v", len(got), got)
	}
	r := got[0]
	if r.Direction != "received" || r.Outcome != "verified" || r.PeerName != "laptop" || r.Auth != "code" ||
		r.Files != ok.Files || r.Bytes != ok.Bytes || strings.Join(r.Names, ",") != strings.Join(ok.Names, ",") ||
		r.Folder != dest || len(r.Paths) != 1 || r.Paths[0] != filepath.Join(dest, top) {
		t.Errorf("receiver's record: %+v", r)
	}
	if fi, err := os.Stat(r.Paths[0]); err != nil || !fi.IsDir() {
		t.Errorf("the recorded path is not what arrived: %v", err)
	}
	if r.PeerFingerprint == "" || r.PeerFingerprint == deskFP {
		t.Errorf("receiver's record names the sender as %q", r.PeerFingerprint)
	}
	if fi, err := os.Stat(filepath.Join(deskHome, ".config", "ferry", "history.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file beside the trust file: %v", err)
	}
}

func jsonPort(ev map[string]any) string {
	b, _ := json.Marshal(ev["port"])
	return string(b)
}
