package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/errkind"
)

// historyHome points the config folder at a fresh one and returns the
// history store there.
func historyHome(t *testing.T) *stores.History {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	store, err := stores.OpenHistory("")
	if err != nil {
		t.Fatal(err)
	}
	return store
}

func record(i int, outcome, kind string) event.History {
	return event.History{
		At:        time.Date(2026, 12, 3, 10, i, 0, 0, time.UTC).Format(time.RFC3339Nano),
		Direction: []string{stores.HistorySent, stores.HistoryReceived}[i%2],
		PeerName:  fmt.Sprintf("device-%d", i), PeerFingerprint: "ABCD-EFGH-IJKL-MNOP", Auth: stores.HistoryByCode,
		Files: 3, Bytes: 1 << 20, Names: []string{fmt.Sprintf("file-%d.txt", i), "b"},
		Folder: "/home/me/Downloads", Outcome: outcome, ErrorKind: kind, DurationMS: 1000,
	}
}

// TestHistoryTable: every line fits 80 columns, whatever the names and
// kinds, and a peer's hostile name is escaped and capped.
func TestHistoryTable(t *testing.T) {
	hostile := record(1, stores.HistoryVerified, "")
	hostile.PeerName = hostileName
	hostile.Names = []string{hostileName, "x"}
	hostile.MoreNames = 40
	recs := []event.History{
		record(0, stores.HistoryVerified, ""), hostile,
		record(2, stores.HistoryFailed, "incompatible_version"),
		record(3, stores.HistoryDeclined, ""), record(4, stores.HistoryCancelled, ""),
		{At: "2026-12-03T11:00:00Z", Direction: stores.HistorySent, PeerAddr: "192.168.100.200:65535", Outcome: stores.HistoryFailed, ErrorKind: "unreachable"},
	}
	now := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	checkHostileOutput(t, "history table", historyTable(recs[1:2], now), false)
	out := historyTable(recs, now)
	if !printable(strings.ReplaceAll(out, "\n", ""), false) {
		t.Errorf("a control character in the table:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(recs)+1 || !strings.HasPrefix(lines[0], "WHEN") {
		t.Fatalf("table:\n%s", out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	for i, want := range []string{"to device-0", "from mallo", "failed: inc", "declined", "cancelled", "to 192.16"} {
		if !strings.Contains(lines[i+1], want) {
			t.Errorf("row %d lacks %q: %q", i, want, lines[i+1])
		}
	}
	if one := historyTable(recs[:1], now); !strings.Contains(one, "\nDec 03 10:00  to device-0") || !strings.Contains(one, "file-0.txt +1") || !strings.Contains(one, "1.0 MiB  verified") {
		t.Errorf("one row:\n%s", one)
	}
	if last := historyTable(recs[:1], time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)); !strings.Contains(last, "\n2026-12-03    to device-0") {
		t.Errorf("a record from last year shows its date:\n%s", last)
	}
	if !strings.Contains(lines[2], "+41") {
		t.Errorf("hostile row keeps its count and size: %q", lines[2])
	}
}

// TestHistoryKindsAgree: the record's kind of a failure (what core/app
// records, HistoryOutcome) is the --json error event's kind
// (classify), so the history reads as the command said, the CLI's own
// usage errors included. The engine's errors that core/app does not
// name are errors of their kind with their words, as the engine makes
// them (core/receive/kinds_test.go holds each sentinel's kind).
func TestHistoryKindsAgree(t *testing.T) {
	for _, err := range []error{
		app.ErrWrongCode, app.ErrCodeRetired, errkind.New(errkind.CodesHeld, "the receiver is not taking codes after too many wrong ones"), app.ErrCodesStopped,
		app.ErrNotPaired, app.ErrKeyChanged, errkind.New(errkind.Busy, "receiver busy"), errkind.New(errkind.Verify, "verification failed: hash mismatch"),
		errkind.New(errkind.Incompatible, "incompatible protocol version"), errkind.New(errkind.NoSpace, "not enough free space"), errkind.New(errkind.Timeout, "the peer went silent"), errkind.New(errkind.SourceChanged, "a file changed on the sender's disk during the transfer"),
		errkind.New(errkind.RefusedPath, "refused path"), errkind.New(errkind.ConnectionLost, "stream truncated"), errkind.New(errkind.ConnectionLost, "connection lost"), errkind.New(errkind.NotFerry, "peer is not speaking the ferry protocol"),
		&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, errors.New("disk on fire"),
		usagef("a hint", "no code for %s", "desk"), codeFlagError("a b"),
		keyChanged("desk", "ab12", stores.Device{Name: "desk", Key: make([]byte, 32)}),
	} {
		wrapped := fmt.Errorf("sending: %w", err)
		_, kind, _ := classify(wrapped)
		if outcome, got := stores.HistoryOutcome(wrapped); outcome != stores.HistoryFailed || got != kind {
			t.Errorf("%v: history records %s %q, --json kind %q", err, outcome, got, kind)
		}
	}
}

// TestHistoryCommand runs "ferry history" in process on a real file:
// the table, --json newest first with --limit, clear, a damaged file
// (a warning, a fresh history, exit 0) and a newer one (an error with a
// hint, the file untouched).
func TestHistoryCommand(t *testing.T) {
	store := historyHome(t)
	runHistory := func(args ...string) (string, string, int) {
		e, stdout, stderr := testEnv(t)
		code := run(context.Background(), append([]string{"history"}, args...), e)
		checkStderr(t, stderr.String(), code != exitOK)
		return stdout.String(), stderr.String(), code
	}
	if out, errOut, code := runHistory(); code != exitOK || out != "" || !strings.Contains(errOut, "no transfers in the history yet") {
		t.Errorf("empty: %d %q %q", code, out, errOut)
	}
	for i := range 3 {
		if _, err := store.Add(record(i, stores.HistoryVerified, "")); err != nil {
			t.Fatal(err)
		}
	}
	out, _, code := runHistory("--json", "--limit", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("--json --limit 2: exit %d, %q", code, out)
	}
	var ev event.History
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil || !strings.HasPrefix(lines[0], `{"event":"history",`) || ev.PeerName != "device-2" ||
		ev.Outcome != "verified" || ev.Folder != "/home/me/Downloads" || ev.DurationMS != 1000 || ev.At != "2026-12-03T10:02:00Z" {
		t.Errorf("newest event: %+v (%v)", ev, err)
	}
	if out, _, _ := runHistory(); strings.Count(out, "\n") != 4 || !strings.Contains(out, "device-0") {
		t.Errorf("table:\n%s", out)
	}
	if _, _, code := runHistory("--limit", "-1"); code != exitUsage {
		t.Errorf("--limit -1: exit %d", code)
	}
	out, _, code = runHistory("clear", "--json")
	if code != exitOK || strings.TrimSpace(out) != `{"event":"history_cleared","count":3}` {
		t.Errorf("clear: exit %d, %q", code, out)
	}
	if recs, _, _ := store.List(); len(recs) != 0 {
		t.Errorf("%d records after clear", len(recs))
	}

	os.WriteFile(store.Path(), []byte(`{"version":1,"records":[{"at":`), 0o600)
	_, errOut, code := runHistory()
	if code != exitOK || !strings.Contains(errOut, "warning: history file") || !strings.Contains(errOut, "moved it to "+store.Path()+".damaged-") {
		t.Errorf("damaged: exit %d, %q", code, errOut)
	}
	newer := []byte(`{"version":9,"records":[]}`)
	os.WriteFile(store.Path(), newer, 0o600)
	_, errOut, code = runHistory("clear")
	if code != exitFailure || !strings.Contains(errOut, "version 9") || !strings.Contains(errOut, "hint: a newer ferry wrote it") {
		t.Errorf("newer: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(store.Path()); string(b) != string(newer) {
		t.Errorf("the newer file changed: %q", b)
	}
}

// TestHistoryOff: --no-history and FERRY_NO_HISTORY (anything but "" and
// "0") give a Node without a history, which records nothing.
func TestHistoryOff(t *testing.T) {
	historyHome(t)
	p := &printer{stdout: &strings.Builder{}, stderr: &strings.Builder{}}
	for _, tc := range []struct {
		flag bool
		env  string
		on   bool
	}{{false, "", true}, {true, "", false}, {false, "1", false}, {false, "yes", false}, {false, "0", true}} {
		e := &env{now: time.Now, getenv: func(k string) string {
			if k == "FERRY_NO_HISTORY" {
				return tc.env
			}
			return ""
		}}
		n, err := newNode(e, p, "desk", tc.flag, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.History() != nil; got != tc.on {
			t.Errorf("--no-history %v, FERRY_NO_HISTORY=%q: on %v", tc.flag, tc.env, got)
		}
		n.Close()
	}
}
