package tests

// Helpers that check how a ferry process failed by what it says, not by
// a number: the kind of its --json error event (core's taxonomy, the word
// scripts branch on) and that its exit code is the one the event gives
// (exit_code), so that no test here writes an exit code down.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/proc"
)

// exitsAs waits for p to exit after its outcome o (nextOutcome) and
// checks that o is an error event of one of kinds and that p exited with
// the exit_code o gives.
func exitsAs(t *testing.T, p *proc.Proc, o outcome, who string, kinds ...string) {
	t.Helper()
	checkFailure(t, who, o.ev, p.Exit(20*time.Second), kinds, p.StderrText())
}

// failsAs reads p's events to its exit and checks its last error event as
// exitsAs does. It returns that event.
func failsAs(t *testing.T, p *proc.Proc, timeout time.Duration, who string, kinds ...string) map[string]any {
	t.Helper()
	last, code := lastError(t, p, timeout, who)
	checkFailure(t, who, last, code, kinds, p.StderrText())
	return last
}

// lastError reads p's events to its exit and returns its last error
// event (nil when none) and its exit code.
func lastError(t *testing.T, p *proc.Proc, timeout time.Duration, who string) (map[string]any, int) {
	t.Helper()
	var last map[string]any
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
read:
	for {
		select {
		case ev, ok := <-p.Events:
			if !ok {
				break read
			}
			if ev["event"] == "error" {
				last = ev
			}
		case <-deadline.C:
			t.Fatalf("%s did not exit within %v; stderr:\n%s", who, timeout, p.StderrText())
		}
	}
	return last, p.Exit(timeout)
}

// runFailsAs is failsAs for a run of proc.Run with --json: its stdout and
// exit code.
func runFailsAs(t *testing.T, who, stdout string, code int, stderr string, kinds ...string) map[string]any {
	t.Helper()
	var last map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil && ev["event"] == "error" {
			last = ev
		}
	}
	checkFailure(t, who, last, code, kinds, stderr)
	return last
}

func checkFailure(t *testing.T, who string, ev map[string]any, code int, kinds []string, stderr string) {
	t.Helper()
	if ev == nil || ev["event"] != "error" {
		t.Errorf("%s exited %d without an error event (last: %v); stderr:\n%s", who, code, ev, stderr)
		return
	}
	kind, _ := ev["kind"].(string)
	exit, ok := ev["exit_code"].(float64)
	if !ok || int(exit) != code || code == 0 {
		t.Errorf("%s exited %d, its error event says exit_code %v (kind %q)", who, code, ev["exit_code"], kind)
	}
	if !slices.Contains(kinds, kind) {
		t.Errorf("%s failed as %q (%v), want %s; stderr:\n%s", who, kind, ev["message"], strings.Join(kinds, " or "), stderr)
	}
}
