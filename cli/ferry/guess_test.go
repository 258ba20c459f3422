package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// After a transfer whose code came after wrong codes, the key is pinned
// only by a person who was told so in the question; --trust alone never
// pins it.
func TestTrustAfterWrongCodes(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 32)
	peer := stores.Device{Name: "laptop", Key: key}
	for _, tc := range []struct {
		name       string
		wrong      int
		flag, ask  bool
		answer     string
		wantPinned bool
		wantText   string
	}{
		{"flag, no wrong code", 0, true, false, "", true, "trusted laptop"},
		{"flag, wrong codes", 2, true, false, "", false, "not trusting laptop"},
		{"question, wrong codes, yes", 2, false, true, "y\n", true, "2 wrong codes were tried here before this code was right"},
		{"question and flag, wrong codes, no", 1, true, true, "n\n", false, "1 wrong code was tried here before this code was right"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			p := &printer{stderr: &stderr}
			store := trustHome(t)
			a := afterCode{p: p, q: &prompter{p: p, in: strings.NewReader(tc.answer)}, n: testNode(t), flag: tc.flag, ask: tc.ask}
			a.run(context.Background(), app.Result{Peer: peer, WrongCodes: tc.wrong})
			_, pinned, err := store.Trusted(key)
			if err != nil {
				t.Fatal(err)
			}
			if pinned != tc.wantPinned {
				t.Errorf("pinned %v, want %v; stderr:\n%s", pinned, tc.wantPinned, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantText) {
				t.Errorf("stderr does not say %q:\n%s", tc.wantText, stderr.String())
			}
		})
	}
}

// A paired sender is named by its pin; the name it claims shows only
// when it differs.
func TestPairedLabel(t *testing.T) {
	store := trustHome(t)
	key := bytes.Repeat([]byte{5}, 32)
	if err := store.Add(stores.Device{Name: "desk", Key: key, PairedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	fp := stores.Device{Key: key}.Fingerprint()
	for _, tc := range []struct{ claimed, want string }{
		{"desk", "paired device desk (" + fp + ") connected"},
		{"DESK", "paired device desk (" + fp + ") connected"},
		{"laptop", "paired device desk (" + fp + "), calling itself 'laptop' connected"},
		{"", "paired device desk (" + fp + ") connected"},
	} {
		var stdout, stderr bytes.Buffer
		p := &printer{stdout: &stdout, stderr: &stderr}
		// Offers are declined unasked (noAsk): the offer is listed, and
		// core/app would answer it.
		rs := &receiveSession{p: p, pr: newProgress(p, progressPlain, time.Now), noAsk: "test"}
		rs.onEvent(nil, event.Connected{PeerName: tc.claimed, PeerFingerprint: fp, PeerKey: key, Addr: "10.0.0.2:1", Paired: true, PinnedName: "desk"})
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("claimed %q: stderr %q, want %q", tc.claimed, stderr.String(), tc.want)
		}
		rs.onEvent(nil, event.Offer{PeerName: tc.claimed, PeerFingerprint: fp, Texts: 1})
		if !strings.Contains(stderr.String(), strings.TrimPrefix(strings.TrimSuffix(tc.want, " connected"), "paired device ")+" wants to send") {
			t.Errorf("claimed %q: the offer is not labelled by the pin:\n%s", tc.claimed, stderr.String())
		}
		rs.wg.Wait()
	}
}

// testNode is a Node in the test's home (trustHome), named "desk".
func testNode(t *testing.T) *app.Node {
	t.Helper()
	n, err := app.New(app.Config{Name: "desk", NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
