//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/tests/proc"
)

// receiveAsHome starts "ferry receive --json" as the device whose home
// is home, and returns it with its listening event.
func receiveAsHome(t *testing.T, home string, args ...string) (*proc.Proc, map[string]any) {
	t.Helper()
	r := proc.Start(t, asHome(t, home, append([]string{"receive", "--no-mdns", "--listen", "127.0.0.1:0", "--json", "--dir", t.TempDir()}, args...)...), true)
	return r, r.Until("listening", 20*time.Second)
}

// guessesFile is the device's count as the file keeps it (core/guess's
// documented format).
type guessesFile struct {
	Version int     `json:"version"`
	Wrong   int     `json:"wrong"`
	Last    *string `json:"last"`
	Stopped bool    `json:"stopped"`
}

func readGuesses(t *testing.T, home string) guessesFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, ".config", "ferry", "guesses.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g guessesFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("guesses.json: %v\n%s", err, b)
	}
	return g
}

func writeGuesses(t *testing.T, home string, g guessesFile) {
	t.Helper()
	dir := filepath.Join(home, ".config", "ferry")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(g)
	if err := os.WriteFile(filepath.Join(dir, "guesses.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// wrongCodes sends n wrong codes to addr, each checked (none held back).
func wrongCodes(t *testing.T, addr string, n int) {
	t.Helper()
	id := testid.New(t)
	for i := range n {
		_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 900000+i), Identity: id,
			Items: []event.Item{{Text: "x"}}})
		if !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
			t.Fatalf("wrong code %d to %s: %v", i+1, addr, err)
		}
	}
}

func addrOf(ev map[string]any) string {
	port, _ := ev["port"].(float64)
	return "127.0.0.1:" + strconv.Itoa(int(port))
}

// Two ferry processes on one device count in one count: A checks 4
// wrong codes, B 2 (the sixth on the device: B holds codes back, and
// says 6), then A one more, which is the device's seventh (A says 7,
// where before it said nothing: it counted 5 of its own); the file holds
// 7. Two real processes, one config folder.
func TestE2EGuessCountShared(t *testing.T) {
	home := t.TempDir()
	a, aev := receiveAsHome(t, home, "--code", "111111", "--keep")
	b, bev := receiveAsHome(t, home, "--code", "222222", "--keep")
	wrongCodes(t, addrOf(aev), 4)
	wrongCodes(t, addrOf(bev), 2)
	if ev := b.Until("codes_held", 10*time.Second); ev["wrong"] != float64(6) {
		t.Fatalf("B's codes_held: %v, want wrong 6 (A's 4 and its 2)", ev)
	}
	if g := readGuesses(t, home); g.Wrong != 6 {
		t.Fatalf("the file after A's 4 and B's 2: %+v", g)
	}
	time.Sleep(guessWait) // the back-off after the sixth, on the real clock
	wrongCodes(t, addrOf(aev), 1)
	if ev := a.Until("codes_held", 10*time.Second); ev["wrong"] != float64(7) {
		t.Fatalf("A's codes_held: %v, want wrong 7", ev)
	}
	if g := readGuesses(t, home); g.Wrong != 7 {
		t.Fatalf("the file after 7: %+v", g)
	}
	a.Signal(os.Interrupt)
	b.Signal(os.Interrupt)
	a.Exit(20 * time.Second)
	b.Exit(20 * time.Second)
	if g := readGuesses(t, home); g.Wrong != 7 {
		t.Fatalf("the file after both ended: %+v", g)
	}
}

// guessWait is the wait after the sixth wrong code (core/guess's Wait),
// with room for a slow machine.
const guessWait = 600 * time.Millisecond

// On a device where 12 wrong codes were tried (and the stop lifted, or
// the receiver started by hand after exit 6), ferry receive shows an
// 8-digit code, says why on stderr and in --json (code_longer), and a
// sender who types it gets through.
func TestE2EGuessCodeLonger(t *testing.T) {
	home := t.TempDir()
	last := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	writeGuesses(t, home, guessesFile{Version: 1, Wrong: 12, Last: &last, Stopped: true})
	r, ev := receiveAsHome(t, home, "--yes")
	code, _ := ev["code"].(string)
	if len(code) != 8 {
		t.Fatalf("listening code %q, want 8 digits", code)
	}
	if l := r.Until("code_longer", 10*time.Second); l["digits"] != float64(8) || l["wrong"] != float64(12) || l["days"] != float64(90) {
		t.Fatalf("code_longer: %v", l)
	}
	if _, stderr, c := sendRun(t, "--to", addrOf(ev), "--code", code, "--text", "hello"); c != 0 {
		t.Fatalf("send with the 8-digit code: exit %d\n%s", c, stderr)
	}
	if c := r.Exit(20 * time.Second); c != 0 {
		t.Fatalf("receiver exit %d\n%s", c, r.StderrText())
	}
	// Without --json, a line on stderr says why.
	h := proc.Start(t, asHome(t, home, "receive", "--no-mdns", "--listen", "127.0.0.1:0", "--dir", t.TempDir()), false)
	h.Stderr.WaitFor(t, "the code is 8 digits, not 6: 12 wrong codes were tried on this device", 20*time.Second)
	h.Signal(os.Interrupt)
	h.Exit(20 * time.Second)
	checkStderr(t, h.StderrText(), true) // the interrupt is the one error
	if g := readGuesses(t, home); g.Wrong != 12 || g.Stopped {
		t.Errorf("the file after a start by hand and a transfer: %+v, want 12, not stopped", g)
	}
}
