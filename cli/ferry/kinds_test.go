package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/errkind"
)

// documentedExit is the exit code cli/README.md gives each kind; a kind
// it does not list exits 1.
var documentedExit = map[errkind.Kind]int{
	errkind.WrongCode: exitWrong, errkind.CodeRetired: exitWrong, errkind.CodesHeld: exitWrong,
	errkind.NotPaired: exitWrong, errkind.KeyChanged: exitWrong,
	errkind.CodesStopped: exitStopped,
	errkind.Declined:     exitDeclined, errkind.Cancelled: exitDeclined,
	errkind.Verify: exitVerify,
	errkind.Usage:  exitUsage, errkind.BadCode: exitUsage, errkind.DirNotWritable: exitUsage,
}

// TestEveryKindWorded: for an error of every kind of core's taxonomy,
// the CLI's --json kind is that kind (it never tells errors apart
// itself), the exit code is the documented one, and core/app records
// the same kind (HistoryOutcome), so the CLI's, the GUI's and the app's
// histories agree with the error events.
func TestEveryKindWorded(t *testing.T) {
	for _, k := range errkind.All() {
		err := fmt.Errorf("sending to box: %w", errkind.New(k, "example"))
		code, kind, _ := classify(err)
		want, ok := documentedExit[k]
		if !ok {
			want = exitFailure
		}
		if kind != string(k) || code != want {
			t.Errorf("an error of kind %q: exit %d, kind %q; want exit %d", k, code, kind, want)
		}
		outcome, h := stores.HistoryOutcome(err)
		if h == "" { // declined and cancelled are outcomes of their own
			h = outcome
		}
		if h != kind {
			t.Errorf("an error of kind %q: history says %q, --json %q", k, h, kind)
		}
	}
}

// TestSettledKinds: the errors the front ends used to word differently.
// A receiver busy with another transfer is "busy" (mobile said "other");
// another protocol version is "incompatible_version" (mobile said
// "incompatible"); a record that fails authentication is "damaged",
// exit 1 (the GUI said a file arrived damaged, the CLI "failure").
// Which engine error has which kind (secure.ErrBusy is busy, ErrAuth
// damaged, ...) is core's to hold, in core/receive/kinds_test.go; here
// the CLI words an error of each of those kinds.
func TestSettledKinds(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code int
		kind string
	}{
		{errkind.New(errkind.Busy, "receiver busy"), exitFailure, "busy"},
		{errkind.New(errkind.Incompatible, "incompatible protocol version"), exitFailure, "incompatible_version"},
		{errkind.New(errkind.Damaged, "record failed authentication"), exitFailure, "damaged"},
		{errkind.New(errkind.Timeout, "handshake timed out"), exitFailure, "timeout"},
		{errkind.New(errkind.Protocol, "protocol violation"), exitFailure, "protocol"},
	} {
		code, kind, _ := classify(fmt.Errorf("receiving: %w", tt.err))
		if code != tt.code || kind != tt.kind {
			t.Errorf("%v: exit %d, kind %q; want %d %q", tt.err, code, kind, tt.code, tt.kind)
		}
	}
}

// TestAffordancesKnownKinds: the CLI's own part of a hint is keyed by
// kinds of core's taxonomy, and a hint is core's words with it after
// them, in the CLI's form (lowercase, no period at the end).
func TestAffordancesKnownKinds(t *testing.T) {
	known := map[errkind.Kind]bool{}
	for _, k := range errkind.All() {
		known[k] = true
	}
	for k, a := range affordances {
		if !known[k] {
			t.Errorf("affordance for %q, which is not a kind", k)
		}
		if a != "" && (strings.HasSuffix(a, ".") || strings.ToLower(a[:1]) != a[:1]) {
			t.Errorf("affordance for %q is not in the CLI's form: %q", k, a)
		}
	}
	for _, k := range errkind.All() {
		_, _, hint := classify(errkind.New(k, "example"))
		if a, ok := affordances[k]; ok && a == "" {
			if hint != "" && k != errkind.Usage {
				t.Errorf("kind %q: hint %q, want none", k, hint)
			}
			continue
		}
		if !strings.HasPrefix(hint, errkind.WordsOf(k).Hint) || strings.HasSuffix(hint, ".") {
			t.Errorf("kind %q: hint %q is not core's words (%q) in the CLI's form", k, hint, errkind.WordsOf(k).Hint)
		}
	}
}
