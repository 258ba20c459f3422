package main

// A guesser at full speed against `ferry receive --keep`: wrong codes
// sent back to back until the receiver stops taking codes, which no
// person does, so it is a hostile sender and uses the engine.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
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
			_, err := send.Send(t.Context(), send.SendConfig{Addrs: []string{addr}, Code: fmt.Sprintf("%06d", 222222+n), Identity: id,
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
