package ui

// A receiver that lies about who it is, for the pin check to refuse.

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/testkit/testid"
)

// impostor is a receiver on 127.0.0.1 with a key of its own that
// welcomes any sender as paired, whatever key it pinned: no core/app
// receiver does that (its pins are its trust store's), so it is the
// engine's receiver, served on a goroutine the test owns.
type impostor struct {
	r   *receive.Receiver
	dir string
}

func startImpostor(t *testing.T) *impostor {
	t.Helper()
	p := &impostor{dir: t.TempDir()}
	var err error
	p.r, err = receive.NewReceiver(receive.ReceiverConfig{
		Dir: p.dir, Listen: "127.0.0.1:0", Identity: testid.New(t), Name: "Peer box", Policy: receive.AcceptAll,
		Paired: func([]byte) bool { return true }, // welcomes anyone
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.r.Serve(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		p.r.Close()
	})
	return p
}

func (p *impostor) addr() string { return "127.0.0.1:" + strconv.Itoa(p.r.Port()) }

func TestImpostorWithTrustedFingerprint(t *testing.T) {
	// A receiver advertises a trusted device's name and fingerprint, but
	// its key is its own: the pin check refuses it.
	impostor := startImpostor(t)
	desk := testid.New(t)
	updates := make(chan []Device, 1)
	a := newHarness(t, noReceive, browsing(updates))
	a.pin("Old desk", desk)
	a.u.Start()
	updates <- []Device{{Name: "Old desk", Fingerprint: desk.Fingerprint(), Addrs: []string{impostor.addr()}}}
	sv := a.u.send
	a.waitFor("the device", func() bool { return len(sv.devices) == 1 && sv.devices[0].status == stores.TrustTrusted })
	a.drop(writeFile(t, t.TempDir(), "secret.txt", 100))
	a.chooseDevice(0)
	p := a.sendAndWait()
	a.loop.run(func() {
		if p.state != stateFailed || p.headline.Text != "Device key changed" || !contains(p.advice.Text, "pair again") {
			t.Errorf("state %v headline %q advice %q (%s)", p.state, p.headline.Text, p.advice.Text, p.detail.Text)
		}
	})
	if entries, _ := os.ReadDir(impostor.dir); len(entries) != 0 {
		t.Errorf("the impostor received %d entries", len(entries))
	}
}

// A peer's name that would read as another device's (a zero-width
// space, a bidi override) is shown escaped in the app, as in the CLI.
func TestPeerLineEscapesHostileName(t *testing.T) {
	for name, want := range map[string]string{
		"desk":          "desk  ·  ABCD",
		"de\u200bsk":    "deU+200Bsk  ·  ABCD",
		"evil\u202egpj": "evilU+202Egpj  ·  ABCD",
		"line\nforged":  `line\x0aforged  ·  ABCD`,
	} {
		if got := peerLine(name, "ABCD"); got != want {
			t.Errorf("peerLine(%q) = %q, want %q", name, got, want)
		}
	}
}
