package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/nearby"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/errkind"
)

// trustHome gives this test process a config folder of its own (the
// trust file lives there, beside the key) and returns the trust store.
func trustHome(t *testing.T) *stores.Trust {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	store, err := stores.OpenTrust("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".config", "ferry", "trusted.json"); store.Path() != want {
		t.Fatalf("trust file at %s, want %s", store.Path(), want)
	}
	return store
}

func randomDevice(t *testing.T, name string) stores.Device {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return stores.Device{Name: name, Key: k, PairedAt: time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)}
}

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	e, out, errb := testEnv(t)
	code = run(context.Background(), args, e)
	return out.String(), errb.String(), code
}

func TestTrustUsageErrors(t *testing.T) {
	store := trustHome(t)
	if err := store.Add(randomDevice(t, "desk")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"paired without to", []string{"send", "--paired", "desk", file}, "--paired goes with --to"},
		{"paired with peer", []string{"send", "--peer", "desk", "--paired", "desk", file}, "--paired goes with --to"},
		{"paired with code", []string{"send", "--to", "127.0.0.1:9", "--paired", "desk", "--code", "1", file}, "cannot be used together"},
		{"paired unknown", []string{"send", "--to", "127.0.0.1:9", "--paired", "laptop", file}, `no trusted device matches --paired "laptop"`},
		// Found before any discovery: no trusted device could answer.
		{"peer not trusted off a terminal", []string{"send", "--peer", "laptop", file}, "laptop is not a trusted device"},
		{"peer not trusted with json", []string{"send", "--json", "--peer", "laptop", file}, "--json asks nothing, and laptop is not a trusted device"},
		{"trust alone", []string{"trust"}, "trust needs list, add or remove"},
		{"trust unknown", []string{"trust", "forget", "desk"}, `unknown trust command "forget"`},
		{"trust add nothing", []string{"trust", "add"}, "trust add takes one device, got 0"},
		{"trust remove two", []string{"trust", "remove", "a", "b"}, "trust remove takes one device, got 2"},
		{"trust list operand", []string{"trust", "list", "desk"}, `unexpected argument "desk"`},
		{"trust add unknown", []string{"trust", "add", "laptop"}, `no recent device matches "laptop"`},
		{"trust remove unknown", []string{"trust", "remove", "laptop"}, `no trusted device matches "laptop"`},
		{"trust bad flag", []string{"trust", "add", "--recent", "x"}, "unknown flag --recent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, "ferry: error: ") || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr does not say %q:\n%s", tt.wantErr, stderr)
			}
			if !strings.Contains(stderr, "ferry: hint: ") {
				t.Errorf("usage error without a hint:\n%s", stderr)
			}
			if strings.Contains(stderr, "looking for") {
				t.Errorf("went looking on the network:\n%s", stderr)
			}
			if strings.Contains(strings.Join(tt.args, " "), "--json") != (stdout != "") {
				t.Errorf("stdout %q", stdout)
			}
			checkStderr(t, stderr, true)
		})
	}
}

func TestTrustCommands(t *testing.T) {
	store := trustHome(t)
	desk := randomDevice(t, "desk")
	phone := randomDevice(t, "Zoë's phone")
	if err := store.Add(desk); err != nil {
		t.Fatal(err)
	}
	if err := store.NoteRecent(phone); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := runCLI(t, "trust", "list")
	if code != exitOK || stderr != "" {
		t.Fatalf("trust list: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[0], "FINGERPRINT") ||
		!strings.Contains(lines[0], "PAIRED") || !strings.Contains(lines[1], "desk") ||
		!strings.Contains(lines[1], desk.Fingerprint()) || !strings.Contains(lines[1], "2026-03-0") {
		t.Fatalf("trust list:\n%s", stdout)
	}

	// The recent list holds what add can trust.
	stdout, _, _ = runCLI(t, "trust", "list", "--recent", "--json")
	var ev map[string]any
	if err := json.Unmarshal([]byte(stdout), &ev); err != nil || ev["event"] != "recent" || ev["name"] != "Zoë's phone" ||
		ev["fingerprint"] != phone.Fingerprint() || ev["paired_at"] != "2026-03-04T05:06:00Z" {
		t.Fatalf("trust list --recent --json: %s (%v)", stdout, err)
	}

	// add by a fingerprint prefix, lower case, no dashes.
	prefix := strings.ToLower(strings.ReplaceAll(phone.Fingerprint(), "-", ""))[:6]
	_, stderr, code = runCLI(t, "trust", "add", prefix)
	if code != exitOK || !strings.Contains(stderr, "trusted Zoë's phone ("+phone.Fingerprint()+")") {
		t.Fatalf("trust add: exit %d\n%s", code, stderr)
	}
	checkStderr(t, stderr, false)
	if d, ok, _ := store.Trusted(phone.Key); !ok || d.Name != "Zoë's phone" {
		t.Fatalf("phone not trusted after add: %+v %v", d, ok)
	}
	// Adding it again says so and changes nothing.
	if _, stderr, code = runCLI(t, "trust", "add", "zoë's phone"); code != exitOK || !strings.Contains(stderr, "already trusted") {
		t.Fatalf("second add: exit %d\n%s", code, stderr)
	}

	stdout, _, code = runCLI(t, "trust", "list", "--json")
	if code != exitOK || strings.Count(stdout, `"event":"trusted"`) != 2 {
		t.Fatalf("trust list --json:\n%s", stdout)
	}

	// Two devices called desk: a name is ambiguous, the fingerprint not.
	desk2 := randomDevice(t, "Desk")
	store.Add(desk2)
	_, stderr, code = runCLI(t, "trust", "remove", "desk")
	if code != exitUsage || !strings.Contains(stderr, desk.Fingerprint()) || !strings.Contains(stderr, desk2.Fingerprint()) {
		t.Fatalf("ambiguous remove: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI(t, "trust", "remove", desk2.Fingerprint())
	if code != exitOK || !strings.Contains(stderr, "removed Desk ("+desk2.Fingerprint()+"): transfers with it need the code again") {
		t.Fatalf("remove by fingerprint: exit %d\n%s", code, stderr)
	}
	stdout, _, code = runCLI(t, "trust", "remove", "--json", "DESK")
	if code != exitOK || !strings.Contains(stdout, `"event":"untrusted"`) || !strings.Contains(stdout, desk.Fingerprint()) {
		t.Fatalf("remove --json: exit %d\n%s", code, stdout)
	}
	devs, _ := store.Devices()
	if len(devs) != 1 || devs[0].Name != "Zoë's phone" {
		t.Fatalf("left: %+v", devs)
	}
}

func TestTrustListEmpty(t *testing.T) {
	trustHome(t)
	stdout, stderr, code := runCLI(t, "trust", "list")
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "no trusted devices") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	checkStderr(t, stderr, false)
	stdout, stderr, code = runCLI(t, "trust", "list", "--json")
	if code != exitOK || stdout != "" || stderr != "" {
		t.Fatalf("--json: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestTrustFileBroken: a broken trust file is an error for the trust
// commands (exit 1, kind trust_file, the file named), a warning for send,
// and is never rewritten.
func TestTrustFileBroken(t *testing.T) {
	store := trustHome(t)
	os.MkdirAll(filepath.Dir(store.Path()), 0o700)
	broken := "{\"version\": 1,\n\"devices\": [{\"name\": \"desk\"}]}\n"
	os.WriteFile(store.Path(), []byte(broken), 0o600)

	for _, args := range [][]string{{"trust", "list"}, {"trust", "add", "x"}, {"trust", "remove", "desk"}} {
		stdout, stderr, code := runCLI(t, append(args, "--json")...)
		if code != exitFailure || !strings.Contains(stderr, store.Path()) || !strings.Contains(stderr, `line 2: devices[0]: no "key"`) {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
		if !strings.Contains(stdout, `"kind":"trust_file"`) || !strings.Contains(stderr, "ferry: hint: fix the file") {
			t.Errorf("%v: stdout %s\nstderr %s", args, stdout, stderr)
		}
		checkStderr(t, stderr, true)
	}
	// send goes on with a warning (and here fails for want of a code).
	file := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	_, stderr, code := runCLI(t, "send", "--peer", "desk", file)
	if code != exitUsage || !strings.Contains(stderr, "ferry: warning: trusted devices are off: trust file "+store.Path()) {
		t.Errorf("send: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(store.Path()); string(b) != broken {
		t.Fatalf("the broken file was rewritten:\n%s", b)
	}
}

func TestClassifyTrustErrors(t *testing.T) {
	tests := []struct {
		err  error
		code int
		kind string
		hint string
	}{
		{fmt.Errorf("x: %w", app.ErrNotPaired), exitWrong, "not_paired", "pair again: send once with the code"},
		{fmt.Errorf("x: %w", app.ErrKeyChanged), exitWrong, "key_changed", "ferry trust remove"},
		{fmt.Errorf("x: %w", errkind.New(errkind.Busy, "receiver busy")), exitFailure, "busy", "another transfer"},
		{fmt.Errorf("x: %w", stores.ErrTrustCorrupt), exitFailure, "trust_file", "fix the file"},
		{fmt.Errorf("x: %w", stores.ErrTrustVersion), exitFailure, "trust_file", "fix the file"},
	}
	for _, tt := range tests {
		code, kind, hint := classify(tt.err)
		if code != tt.code || kind != tt.kind || !strings.Contains(hint, tt.hint) {
			t.Errorf("%v: %d %s %q, want %d %s %q", tt.err, code, kind, hint, tt.code, tt.kind, tt.hint)
		}
	}
	if !errors.Is(keyChanged("desk", "AAAA-AAAA-AAAA-AAAA", randomDevice(t, "desk")), app.ErrKeyChanged) {
		t.Error("keyChanged does not wrap ErrKeyChanged")
	}
}

// TestPeersTableImpostor: a receiver with a trusted device's name and
// another key is listed as NOT the trusted device, with both keys, in
// ferry peers and in ferry send's list; --json keeps key_changed.
func TestPeersTableImpostor(t *testing.T) {
	store, err := stores.OpenTrust(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	trusted, other := make([]byte, 32), make([]byte, 32)
	rand.Read(trusted)
	rand.Read(other)
	desk := stores.Device{Name: "desk", Key: trusted, PairedAt: time.Now()}
	if err := store.Add(desk); err != nil {
		t.Fatal(err)
	}
	impostor := nearby.Peer{Name: "desk", Fingerprint: stores.Device{Key: other}.Fingerprint(), Port: 1}
	want := "NOT the trusted device: its key is " + stores.Device{Key: other}.Fingerprint() + ", the trusted one's " + desk.Fingerprint()
	if table := peersTable([]nearby.Peer{impostor}, store); !strings.Contains(table, want) {
		t.Errorf("ferry peers lists the impostor as:\n%s\nwant %q", table, want)
	}
	_, mark := nearby.TrustWords(store, impostor.Name, impostor.Fingerprint)
	if got := mark; got != want {
		t.Errorf("ferry send's list marks it %q, want %q", got, want)
	}
	if got := impostor.Event(store).Trust; got != "key_changed" {
		t.Errorf("--json status %q", got)
	}
	if _, got := nearby.TrustWords(store, "desk", desk.Fingerprint()); got != "trusted" {
		t.Errorf("the trusted device is marked %q", got)
	}
}
