package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// These tests refuse real senders without a code over loopback, through
// the real core's handshake, and read what the receiving window says.

// sendWith sends cfg from d to the harness's receiver on a goroutine the
// test owns; cfg.Addrs is filled in.
func sendWith(t *testing.T, h *harness, d device, cfg app.SendConfig) <-chan error {
	t.Helper()
	_, addr, _ := h.listening()
	cfg.Addrs = []string{addr}
	return goSend(t, d, cfg)
}

// notice waits for the Receive view's refusal notice to say want, and
// checks that the receiver still waits, on the same code, with no dialog.
func (h *harness) notice(head, want, code string) {
	h.t.Helper()
	rv := h.u.recv
	h.waitFor("the refusal notice", func() bool { return rv.notice.Visible() && rv.noticeText.Text != "" && rv.noticeHead.Text == head })
	h.loop.run(func() {
		if rv.noticeText.Text != want {
			h.t.Errorf("notice says\n%q\nwant\n%q", rv.noticeText.Text, want)
		}
		if !rv.ready.Visible() || !rv.waiting() || rv.code != code {
			h.t.Errorf("the receiver stopped waiting: ready %v, code %q (was %q)", rv.ready.Visible(), rv.code, code)
		}
		if top := h.win.Canvas().Overlays().Top(); top != nil {
			h.t.Errorf("a refusal opened an overlay: %T", top)
		}
	})
	h.loop.run(h.u.ShowReceive) // the person looks; a refusal doesn't switch tabs
	if s := h.screen(); strings.Count(s, "tried to send without a code") != 1 || !contains(s, head) {
		h.t.Errorf("the window should show one notice %q: %s", head, s)
	}
}

func TestRemovedPinRefusedOnReceiverWithNotice(t *testing.T) {
	b := newHarness(t, named("Desk B"), askOff)
	b.u.Start()
	laptop := newDevice(t, "Laptop")
	rv, set := b.u.recv, b.u.settings

	// Paired the usual way: a send with the code, and B ticks Trust.
	b.listening()
	if err := <-sendFrom(t, b, laptop, false, event.Item{Text: "hello"}); err != nil {
		t.Fatalf("send with the code: %v", err)
	}
	b.waitFor("B's result", func() bool { return rv.prog.state == stateVerified && rv.prog.trust != nil })
	b.loop.run(func() { test.Tap(rv.prog.trust) })
	b.waitFor("B to trust the laptop", func() bool { return b.trusts(laptop.Public()) && !rv.prog.trust.Disabled() })
	b.loop.run(rv.listenAgain)
	b.waitFor("a new receiver", func() bool { return rv.waiting() && !rv.busy && rv.ready.Visible() })

	// A code-less send works, then B removes the laptop in Settings.
	if err := <-sendFrom(t, b, laptop, true, event.Item{Text: "paired"}); err != nil {
		t.Fatalf("send without a code while trusted: %v", err)
	}
	b.waitFor("B's paired result", func() bool { return rv.prog.state == stateVerified && rv.prog.conn.Paired })
	b.loop.run(func() {
		rv.listenAgain()
		b.u.ShowSettings()
	})
	b.waitFor("the laptop in Settings", func() bool { return len(set.trustedRows) == 1 })
	b.loop.run(func() { test.Tap(set.trustedRows[0].remove) })
	b.waitFor("the pin removed", func() bool { return !b.trusts(laptop.Public()) })
	b.loop.run(b.u.ShowReceive)

	// The laptop still trusts B and sends without a code: both ends say so.
	_, _, code := b.listening()
	err := <-sendFrom(t, b, laptop, true, event.Item{Text: "refused"})
	if !errors.Is(err, app.ErrNotPaired) {
		t.Fatalf("code-less send after the pin was removed: %v, want not paired", err)
	}
	want := "Laptop (" + laptop.Fingerprint() + ") tried to send without a code, but this device does not trust it. To pair again: send once with the code and tick Trust."
	b.notice("Refused a sender without a code", want, code)

	// Again: the notice is replaced, not stacked.
	if err := <-sendFrom(t, b, laptop, true, event.Item{Text: "refused again"}); !errors.Is(err, app.ErrNotPaired) {
		t.Fatalf("second code-less send: %v", err)
	}
	b.notice("Refused 2 senders without a code; the latest:", want, code)

	// The code still works on the same receiver, and they can pair again.
	if err := <-sendFrom(t, b, laptop, false, event.Item{Text: "with the code"}); err != nil {
		t.Fatalf("send with the code after the refusals: %v", err)
	}
	b.waitFor("B's result", func() bool { return rv.prog.state == stateVerified && rv.prog.trust != nil })
	b.loop.run(func() {
		if len(rv.texts) != 1 || rv.texts[0] != "with the code" {
			t.Errorf("received %q", rv.texts)
		}
		if rv.notice.Visible() || rv.refusals != 0 {
			t.Errorf("the notice outlived a transfer that got through: %q", rv.noticeText.Text)
		}
		if rv.prog.trust.Checked || rv.prog.trust.Text != "Trust Laptop: next time, no code needed" {
			t.Errorf("trust box %q checked=%v", rv.prog.trust.Text, rv.prog.trust.Checked)
		}
	})
}

// brokenAtStart is a device whose trust file cannot be read when it
// starts: the Node turns trusted devices off for its life.
func brokenAtStart(t *testing.T) harnessOpt {
	dir := filepath.Join(t.TempDir(), "config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trusted.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	return withNode(t, app.Config{ConfigDir: dir, NoHistory: true})
}

func TestRefusedReasonsOnReceiver(t *testing.T) {
	other := testid.New(t) // the device a stale pin meant
	tests := []struct {
		name    string
		opts    []harnessOpt
		setup   func(t *testing.T, h *harness)
		peerKey func(h *harness) []byte // the sender's pin for the receiver
		sendErr error
		want    string
	}{
		{
			name:    "pin mismatch",
			peerKey: func(*harness) []byte { return other.Public() },
			sendErr: app.ErrKeyChanged,
			want:    "A device at 127.0.0.1 tried to send without a code, but it expected another key for this device (this device made a new key, or it meant another device). Pair again with the code.",
		},
		{
			name:    "pairing off",
			opts:    []harnessOpt{brokenAtStart(t)},
			peerKey: func(h *harness) []byte { return h.id.Public() },
			sendErr: app.ErrNotPaired,
			want:    "A device at 127.0.0.1 tried to send without a code, but trusted transfers are off here; send with the code.",
		},
		{
			name: "broken trust file",
			setup: func(t *testing.T, h *harness) {
				if err := os.MkdirAll(filepath.Dir(h.store.Path()), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(h.store.Path(), []byte(`{"version": 1, "devices": [`), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			peerKey: func(h *harness) []byte { return h.id.Public() },
			sendErr: app.ErrNotPaired,
			want:    " tried to send without a code, but trusted transfers are off here: the list of trusted devices can't be read (Settings says why). Send with the code.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, append([]harnessOpt{askOff}, tt.opts...)...)
			if tt.setup != nil {
				tt.setup(t, h)
			}
			h.u.Start()
			sender := newDevice(t, "Laptop")
			_, _, code := h.listening()
			err := <-sendWith(t, h, sender, app.SendConfig{Pin: &stores.Device{Name: "Test desk", Key: tt.peerKey(h)}, Items: []event.Item{{Text: "x"}}})
			if !errors.Is(err, tt.sendErr) {
				t.Fatalf("code-less send: %v, want %v", err, tt.sendErr)
			}
			want := tt.want
			if strings.HasPrefix(want, " ") {
				want = sender.Fingerprint() + want
			}
			h.notice("Refused a sender without a code", want, code)
			if entries, _ := os.ReadDir(h.dir); len(entries) != 0 {
				t.Errorf("a refused sender left %d entries", len(entries))
			}
		})
	}
}

// TestRefusalTextLimits covers what a loopback test can't provoke on
// demand: refusals dropped in a flood, and a long peer-chosen name.
func TestRefusalTextLimits(t *testing.T) {
	store, err := stores.OpenTrust(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := testid.New(t)
	long := strings.Repeat("é", 120) + " <b>\\n" // 247 bytes, under the store's 255
	if err := store.NoteRecent(stores.Device{Name: long, Key: id.Public(), PairedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	u := &UI{trust: store}
	got := u.refusalText(event.Refused{Addr: "[fe80::1%eth0]:4000", Reason: "not_trusted", PeerFingerprint: id.Fingerprint(), Dropped: 3})
	name := strings.Repeat("é", maxNoticeName-1) + "…"
	want := name + " (" + id.Fingerprint() + ") tried to send without a code, but this device does not trust it. To pair again: send once with the code and tick Trust. (3 more attempts before it not shown: too many at once.)"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	got = u.refusalText(event.Refused{Addr: "[fe80::1%eth0]:4000", Reason: "pin_mismatch", Dropped: 1})
	if !strings.HasPrefix(got, "A device at fe80::1%eth0 tried") || !strings.HasSuffix(got, "(1 more attempt before it not shown: too many at once.)") {
		t.Errorf("pin mismatch with one dropped: %q", got)
	}
	// A device never met is named by its fingerprint alone.
	stranger := testid.New(t)
	got = u.refusalText(event.Refused{Addr: "127.0.0.1:1", Reason: "not_trusted", PeerFingerprint: stranger.Fingerprint()})
	if !strings.HasPrefix(got, stranger.Fingerprint()+" tried to send without a code, but this device does not trust it.") {
		t.Errorf("stranger: %q", got)
	}
}

// TestTrustOffAtStartSaid: a trust file that can't be read as the app
// starts turns trusted devices off (the Node's decision); Settings says
// so and how to fix it.
func TestTrustOffAtStartSaid(t *testing.T) {
	h := newHarness(t, noReceive, brokenAtStart(t))
	h.check(func() bool {
		h.u.settings.loadTrusted()
		if n := h.u.settings.trustedNote; !strings.HasPrefix(n.Text, "Trusted devices are off: the list of trusted devices couldn't be read") || n.Importance != widget.DangerImportance {
			t.Errorf("Settings says %q (%v)", n.Text, n.Importance)
		}
		return true
	})
}
