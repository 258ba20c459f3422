package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/tests/proc"
)

// A `ferry receive --keep --yes` under guessing at full speed: past the
// free wrong codes it says it is holding codes back (a sender is told to
// wait, exit 3, kind codes_held), and once the budget is spent it says it
// stopped taking codes and exits with its own code, 6, kind
// codes_stopped. About half a minute: the budget's back-off.
func TestE2ECodesStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("half a minute of guessing: skipped in short mode")
	}
	t.Parallel()
	recv, addr := startReceiver(t, t.TempDir(), "111111", "--keep", "--yes")
	id := testid.New(t)
	// guess sends wrong codes until one is checked (wrong or retired) and
	// returns how many were held back first; a dial error means the
	// receiver is gone.
	n := 0
	guess := func() error {
		for {
			n++
			_, err := transfer.Send(t.Context(), transfer.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 222222+n), Identity: id,
				Items: []event.Item{{Text: "x"}}})
			if !errors.Is(err, secure.ErrCodesHeld) {
				return err
			}
		}
	}
	for i := range 11 {
		if err := guess(); !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
			t.Fatalf("wrong code %d: %v", i+1, err)
		}
	}
	// Eleven checked: the twelfth waits 16 s. The real sender, even
	// with the right code, is told to wait.
	_, stderr, code := sendRun(t, "--to", addr, "--code", "111111", "--text", "x")
	if code != exitWrong || !strings.Contains(stderr, "holding back codes") {
		t.Fatalf("sender during the back-off: exit %d, want %d, saying it is held back:\n%s", code, exitWrong, stderr)
	}
	if _, _, code := sendRun(t, "--json", "--to", addr, "--code", "111111", "--text", "x"); code != exitWrong {
		t.Fatalf("sender during the back-off, --json: exit %d", code)
	}
	if err := guess(); !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
		t.Fatalf("wrong code 12: %v", err)
	}
	if ev := recv.Until("codes_stopped", 20*time.Second); ev["wrong"] != float64(12) {
		t.Errorf("codes_stopped event: %v", ev)
	}
	ev := recv.Until("error", 20*time.Second)
	if ev["kind"] != "codes_stopped" || ev["exit_code"] != float64(exitStopped) {
		t.Errorf("error event: %v", ev)
	}
	if c := recv.Exit(20 * time.Second); c != exitStopped {
		t.Fatalf("receiver exit %d, want %d\n%s", c, exitStopped, recv.StderrText())
	}
	stderr = recv.StderrText()
	for _, want := range []string{"no code is checked before", "stopped taking codes: 12 wrong codes", "someone on the network may be guessing the code"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("receiver stderr does not say %q:\n%s", want, stderr)
		}
	}
	checkStderr(t, stderr, true)
}

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
