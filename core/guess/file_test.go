//go:build !js

package guess_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/guess"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/transfer"
)

// device is one receiving device's config folder, as the front ends
// keep it: the key and the budget file side by side.
type device struct {
	t     *testing.T
	dir   string
	id    *secure.Identity
	path  string
	warns []error
	mu    sync.Mutex
}

func newDevice(t *testing.T) *device {
	dir := t.TempDir()
	id, err := secure.LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &device{t: t, dir: dir, id: id, path: filepath.Join(dir, guess.FileName)}
}

func (d *device) warn(err error) {
	d.mu.Lock()
	d.warns = append(d.warns, err)
	d.mu.Unlock()
}

// start is the receiver starting, by a person or not: a new Budget on
// the file, and a Receiver over loopback serving until ctx ends.
func (d *device) start(ctx context.Context, byPerson bool) (*receive.Receiver, *guess.Budget, chan []event.Event) {
	b := guess.NewBudget(guess.Config{Store: guess.OpenFile(d.path), ByPerson: byPerson, Warn: d.warn})
	var mu sync.Mutex
	var evs []event.Event
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: d.t.TempDir(), Identity: d.id, Listen: "127.0.0.1:0",
		Policy: receive.AcceptAll, Budget: b, OnEvent: func(e event.Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() }})
	if err != nil {
		d.t.Fatal(err)
	}
	done := make(chan []event.Event, 1)
	go func() {
		r.Serve(ctx)
		r.Close()
		mu.Lock()
		done <- evs
		mu.Unlock()
	}()
	return r, b, done
}

// guess sends with a wrong code, a real handshake over loopback.
func tryCode(t *testing.T, r *receive.Receiver, n int) error {
	id, err := secure.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	shown := r.Code()
	var code int
	fmt.Sscan(shown, &code)
	_, err = send.Send(t.Context(), send.SendConfig{Addrs: []string{fmt.Sprintf("127.0.0.1:%d", r.Port())},
		Code: fmt.Sprintf("%0*d", len(shown), (code+1+n)%int(math.Pow10(len(shown)))), Identity: id, Name: "guesser", Items: []transfer.Item{{Text: "x", Name: "x.txt"}}})
	return err
}

// stopAll ends a receiver and returns its events.
func stopAll(cancel context.CancelFunc, done chan []event.Event) []event.Event {
	cancel()
	return <-done
}

// The count survives every restart: five wrong codes, a restart at login
// (not a person), seven more spend the first twelve; the next restart at
// login starts stopped and says so; a start by hand lifts the stop and
// nothing more (before issue 32 it started the count over): the count
// goes on from 12, and the code shown is 8 digits. All with real files,
// real Receivers and real handshakes.
func TestCountSurvivesRestart(t *testing.T) {
	d := newDevice(t)
	ctx, cancel := context.WithCancel(t.Context())
	r, _, done := d.start(ctx, true)
	for i := range 5 {
		if err := tryCode(t, r, i); !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	stopAll(cancel, done)
	rec, err := guess.OpenFile(d.path).Load()
	if err != nil || rec.Wrong != 5 || rec.Stopped {
		t.Fatalf("after 5 wrong codes the file holds %+v, %v", rec, err)
	}
	checkPrivate(t, d.path)

	// Restarted at login: the count goes on. One more is free, then the
	// back-off: wait it out on the real clock (0.5 s ... 16 s is too
	// long for a test), so spend the rest with a budget whose clock
	// runs ahead, on the same file.
	ctx, cancel = context.WithCancel(t.Context())
	r, b, done := d.start(ctx, false)
	if b.Wrong() != 5 {
		t.Fatalf("restarted at login: %d wrong, want 5 kept", b.Wrong())
	}
	if err := tryCode(t, r, 5); !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("guess 6: %v", err)
	}
	if err := tryCode(t, r, 6); !errors.Is(err, secure.ErrCodesHeld) {
		t.Fatalf("guess 7, at once after the 6th: %v, want held (the count was kept)", err)
	}
	stopAll(cancel, done)

	ahead := time.Now()
	for n := 7; n <= 12; n++ {
		ahead = ahead.Add(time.Minute)
		at := ahead
		b := guess.NewBudget(guess.Config{Store: guess.OpenFile(d.path), Now: func() time.Time { return at }})
		ctx, cancel := context.WithCancel(t.Context())
		r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: t.TempDir(), Identity: d.id, Listen: "127.0.0.1:0",
			Policy: receive.AcceptAll, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		go r.Serve(ctx)
		if err := tryCode(t, r, n); errors.Is(err, secure.ErrCodesHeld) || !errors.Is(err, secure.ErrWrongCode) && !errors.Is(err, secure.ErrCodeRetired) {
			t.Fatalf("guess %d, restarted a minute on: %v", n, err)
		}
		cancel()
		r.Close()
	}
	if rec, err := guess.OpenFile(d.path).Load(); err != nil || rec.Wrong != 12 || !rec.Stopped {
		t.Fatalf("after 12 wrong codes over restarts the file holds %+v, %v; want stopped", rec, err)
	}

	// Restarted at login once more: stopped, and said at once.
	ctx, cancel = context.WithCancel(t.Context())
	r, _, done = d.start(ctx, false)
	if err := tryCode(t, r, 13); !errors.Is(err, secure.ErrCodesHeld) {
		t.Fatalf("a guess after the stop survived a restart: %v", err)
	}
	evs := stopAll(cancel, done)
	if n := count[event.CodesStopped](evs); n != 1 {
		t.Fatalf("the receiver restarted stopped said CodesStopped %d times, want once: %v", n, evs)
	}

	// A person starts it by hand: codes are checked again, longer.
	ctx, cancel = context.WithCancel(t.Context())
	r, b, done = d.start(ctx, true)
	if b.Stopped() || b.Wrong() != 12 || len(r.Code()) != 8 {
		t.Fatalf("started by hand: stopped %v, %d wrong, code %q; want the count kept and 8 digits", b.Stopped(), b.Wrong(), r.Code())
	}
	if err := tryCode(t, r, 14); !errors.Is(err, secure.ErrWrongCode) {
		t.Fatalf("a guess after a person's start: %v, want checked", err)
	}
	stopAll(cancel, done)
	if rec, _ := guess.OpenFile(d.path).Load(); rec.Wrong != 13 {
		t.Fatalf("after a person's start and one wrong code the file holds %+v", rec)
	}
	if len(d.warns) != 0 {
		t.Fatalf("warnings: %v", d.warns)
	}
}

func count[T event.Event](evs []event.Event) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.(T); ok {
			n++
		}
	}
	return n
}

func checkPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
}

// A damaged file is set aside with a message, and the budget starts
// stopped (written back stopped, so the next restart finds it so), not
// fresh; a person's start takes codes again.
func TestDamagedFile(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"truncated", `{"version": 1, "wrong": 4, "last": "2026-12-04T03:00:00Z", "stop`},
		{"not json", "\x00\x00\x00\x00"},
		{"negative", `{"version": 1, "wrong": -3, "last": null, "stopped": false}`},
		{"unknown field", `{"version": 1, "wrong": 0, "last": null, "stopped": false, "free": 100}`},
		{"newer", `{"version": 2, "wrong": 0, "last": null, "stopped": false}`},
		{"no last", `{"version": 1, "wrong": 4, "last": null, "stopped": false}`},
		{"bad time", `{"version": 1, "wrong": 4, "last": "yesterday", "stopped": false}`},
		{"two objects", `{"version": 1, "wrong": 0, "last": null, "stopped": false} {}`},
		{"empty", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDevice(t)
			if err := os.WriteFile(d.path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			r, b, done := d.start(ctx, false)
			if !b.Stopped() {
				t.Fatal("a damaged file started a budget that is not stopped")
			}
			if err := tryCode(t, r, 0); !errors.Is(err, secure.ErrCodesHeld) {
				t.Fatalf("a guess against a damaged file's budget: %v", err)
			}
			stopAll(cancel, done)
			if len(d.warns) != 1 || !errors.Is(d.warns[0], guess.ErrDamaged) || !strings.Contains(d.warns[0].Error(), "set aside as "+d.path+".damaged") ||
				!strings.Contains(d.warns[0].Error(), "not taking codes") {
				t.Fatalf("warnings: %v", d.warns)
			}
			t.Logf("%v", d.warns[0])
			if b, err := os.ReadFile(d.path + ".damaged"); err != nil || string(b) != tc.body {
				t.Fatalf("set aside: %q, %v", b, err)
			}
			if rec, err := guess.OpenFile(d.path).Load(); err != nil || !rec.Stopped {
				t.Fatalf("written back: %+v, %v; want stopped", rec, err)
			}
			if b := guess.NewBudget(guess.Config{Store: guess.OpenFile(d.path), ByPerson: true}); b.Stopped() {
				t.Fatal("a person's start after a damaged file is still stopped")
			}
		})
	}
}

// A file that others may write is not trusted (they could have reset
// it): stopped, and replaced by a private one.
func TestFileOthersMayWrite(t *testing.T) {
	d := newDevice(t)
	if err := guess.OpenFile(d.path).Save(guess.Record{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d.path, 0o666); err != nil {
		t.Fatal(err)
	}
	b := guess.NewBudget(guess.Config{Store: guess.OpenFile(d.path), Warn: d.warn})
	if !b.Stopped() || len(d.warns) != 1 || !errors.Is(d.warns[0], guess.ErrDamaged) {
		t.Fatalf("a file others may write: stopped %v, warnings %v", b.Stopped(), d.warns)
	}
	checkPrivate(t, d.path)
}

// The format round-trips, and a missing file and folder are a fresh
// budget.
func TestRoundTrip(t *testing.T) {
	s := guess.OpenFile(filepath.Join(t.TempDir(), "not yet", guess.FileName))
	if rec, err := s.Load(); err != nil || rec != (guess.Record{}) {
		t.Fatalf("missing file: %+v, %v", rec, err)
	}
	want := guess.Record{Wrong: 7, Last: time.Date(2026, 12, 4, 3, 0, 0, 123456789, time.UTC), Stopped: false}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(); err != nil || !got.Last.Equal(want.Last) || got.Wrong != want.Wrong || got.Stopped != want.Stopped {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, want)
	}
}

// FuzzParse: whatever the file holds, parse returns a record or an
// error, and a record it returns encodes and parses back to itself.
func FuzzParse(f *testing.F) {
	f.Add(guess.Encode(guess.Record{Wrong: 3, Last: time.Unix(1_800_000_000, 5), Stopped: false}))
	f.Add(guess.Encode(guess.Record{}))
	f.Add([]byte(`{"version": 1, "wrong": 12, "last": "2026-12-04T03:00:00Z", "stopped": true}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := guess.Parse(b)
		if err != nil {
			return
		}
		back, err := guess.Parse(guess.Encode(rec))
		if err != nil || back.Wrong != rec.Wrong || back.Stopped != rec.Stopped || !back.Last.Equal(rec.Last) {
			t.Fatalf("%q: %+v re-encoded as %+v, %v", b, rec, back, err)
		}
	})
}

// TestReadCreatesNothing reads the count of a device whose folder does
// not exist: the reads leave it missing (a receiver that reads its count
// as it ends must not bring back a folder just removed), and the first
// change creates it.
func TestReadCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config")
	b := guess.NewBudget(guess.Config{Store: guess.OpenFile(filepath.Join(dir, "guesses.json"))})
	if b.Stopped() || b.Wrong() != 0 || b.Digits() != 6 {
		t.Fatalf("a missing count: stopped %v, wrong %d, digits %d", b.Stopped(), b.Wrong(), b.Digits())
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reading the count created its folder (%v)", err)
	}
	if g, err := b.Guess(func() bool { return false }); err != nil || !g.Checked {
		t.Fatalf("a wrong guess: %+v, %v", g, err)
	}
	if b2 := guess.NewBudget(guess.Config{Store: guess.OpenFile(filepath.Join(dir, "guesses.json"))}); b2.Wrong() != 1 {
		t.Fatalf("the wrong guess was not written: another budget reads %d", b2.Wrong())
	}
}
