package ui

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
)

// TestReceiveFromThreeAtOnce: with "Receive from up to 3 devices at
// once", three real Nodes send to the app's receiver over loopback at
// the same time. Each gets a card with its own question, all three open
// at once under the code; one is declined and its sender told so, the
// other two are accepted one after the other and arrive verified. The
// tray counts the senders as they come and go.
func TestReceiveFromThreeAtOnce(t *testing.T) {
	ta := &trayApp{}
	h := newHarness(t, withTray(ta))
	h.app.Preferences().SetBool(prefTray, true)
	h.app.Preferences().SetInt(prefMaxSenders, 3)
	h.u.Start()
	v := h.u.recv
	code, port := h.listeningMany()

	sends, srcs, cards, code := sendThree(t, h, code, port)
	s := h.screen()
	for _, want := range []string{code, "ann wants to send you 1 file (" + formatBytes(50_000) + ").", "bob wants to send you 1 file", "cy wants to send you 1 file", "Fingerprint "} {
		if !contains(s, want) {
			t.Errorf("the screen with three questions does not show %q", want)
		}
	}
	h.check(func() bool {
		if !v.ready.Visible() || !v.readyBox.Visible() {
			t.Error("the code is not shown above the cards")
			return false
		}
		return true
	})
	h.waitFor("the tray to count three", func() bool { return trayFirst(ta) == "Receiving from 3 devices" })

	h.tap(cards["bob"].decline)
	if err := sends["bob"].Wait().Err; !errors.Is(err, app.ErrDeclined) {
		t.Errorf("bob: %v, want declined", err)
	}
	h.waitFor("bob's card to say declined", func() bool { return cards["bob"].prog.state == stateFailed })
	h.check(func() bool {
		if got := cards["bob"].prog.headline.Text; got != "Declined" {
			t.Errorf("bob's card says %q", got)
			return false
		}
		return true
	})
	h.waitFor("the tray to count two", func() bool { return trayFirst(ta) == "Receiving from 2 devices" })

	h.tap(cards["cy"].accept)
	if err := sends["cy"].Wait().Err; err != nil {
		t.Fatalf("cy: %v", err)
	}
	h.waitFor("cy's card verified", func() bool { return cards["cy"].prog.state == stateVerified })
	h.waitFor("the tray to name ann", func() bool { return trayFirst(ta) == "Receiving from ann" })
	h.check(func() bool {
		if !cards["ann"].ask.Visible() {
			t.Error("ann's question closed when cy's was answered")
			return false
		}
		return true
	})

	h.tap(cards["ann"].accept)
	if err := sends["ann"].Wait().Err; err != nil {
		t.Fatalf("ann: %v", err)
	}
	h.waitFor("ann's card verified", func() bool { return cards["ann"].prog.state == stateVerified })
	h.waitFor("the tray to show a code again", func() bool { return contains(trayFirst(ta), "Code ") })
	checkArrived(t, h, srcs)
	// Finished cards stay until dismissed.
	h.tap(cards["bob"].dismiss)
	h.check(func() bool {
		if len(v.order) != 2 || v.order[0] == cards["bob"] || v.order[1] == cards["bob"] {
			t.Errorf("after dismissing bob's card: %d cards", len(v.order))
			return false
		}
		return true
	})
}

// sendThree sends a file each from three real Nodes, ann, bob and cy,
// to the app's receiver at once, each with the code the app shows then,
// and waits for their three questions; next is the code shown after.
func sendThree(t *testing.T, h *harness, code string, port int) (sends map[string]*app.Transfer, srcs map[string]string, cards map[string]*incomingCard, next string) {
	v := h.u.recv
	names := []string{"ann", "bob", "cy"}
	sends, srcs = map[string]*app.Transfer{}, map[string]string{}
	for i, name := range names {
		srcs[name] = writeFile(t, filepath.Join(t.TempDir(), name), name+".bin", 50_000+i*1000)
		n := testNode(t, app.Config{Name: name, NoHistory: true})
		sends[name] = n.Send(t.Context(), app.SendConfig{
			Items: []event.Item{{Path: srcs[name]}}, Paths: []string{srcs[name]},
			Addrs: []string{"127.0.0.1:" + strconv.Itoa(port)}, Code: code,
		})
		// A code lets in one sender: the app shows the next as soon as
		// this one's handshake proves it, and the next sender types it.
		code = h.nextCode(code)
	}
	cards = map[string]*incomingCard{}
	h.waitFor("three open questions", func() bool {
		for _, c := range v.order {
			if c.ask.Visible() {
				cards[c.prog.conn.PeerName] = c
			}
		}
		return len(cards) == 3
	})
	return sends, srcs, cards, code
}

// checkArrived checks the files of the two accepted senders, ann and cy,
// arrived whole, the declined one's not at all, and the finished cards
// say so.
func checkArrived(t *testing.T, h *harness, srcs map[string]string) {
	t.Helper()
	for _, name := range []string{"ann", "cy"} {
		want, _ := os.ReadFile(srcs[name])
		got, err := os.ReadFile(filepath.Join(h.dir, name+".bin"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s.bin: %d bytes, %v; want the %d sent", name, len(got), err, len(want))
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "bob.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bob's declined file: %v", err)
	}
	s := h.screen()
	for _, want := range []string{"received and verified", "Declined", "Dismiss"} {
		if !contains(s, want) {
			t.Errorf("the finished cards do not show %q", want)
		}
	}

}

// trayFirst is the tray menu's first line, the receiver's.
func trayFirst(ta *trayApp) string {
	l := ta.labels()
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// TestReceiveManyDemo: the screenshot's view shows the code in one line
// above three cards, one asking, one receiving, one verified.
func TestReceiveManyDemo(t *testing.T) {
	h := newHarness(t, noReceive)
	h.loop.run(func() {
		if err := h.u.Demo("receive-many"); err != nil {
			t.Error(err)
		}
	})
	s := h.screen()
	for _, want := range []string{"482913", "Waiting for more: up to 3 devices at once", "Pixel 8 wants to send you 3 files",
		"Receiving 1 file (" + formatBytes(1_843_200_000) + ")", "Cancel", "All 2 files received and verified", "Dismiss"} {
		if !contains(s, want) {
			t.Errorf("the demo does not show %q", want)
		}
	}
	h.check(func() bool {
		if len(h.u.recv.order) != 3 || h.u.recv.body.Visible() {
			t.Errorf("%d cards, QR code shown %v; want 3 cards under the code's line", len(h.u.recv.order), h.u.recv.body.Visible())
			return false
		}
		return true
	})
}

// TestSettingReceiveFromUpTo: the setting defaults to one sender at a
// time, is kept in the preferences, and applies when saved: a waiting
// receiver listens again for several senders, and back for one.
func TestSettingReceiveFromUpTo(t *testing.T) {
	h := newHarness(t)
	h.u.Start()
	v, sv := h.u.recv, h.u.settings
	h.waitFor("one sender at a time", func() bool { return v.waiting() && !v.many && len(v.code) >= 6 })
	h.check(func() bool {
		if sv.maxSenders.Selected != "1" {
			t.Errorf("the setting shows %q by default, want 1", sv.maxSenders.Selected)
			return false
		}
		return true
	})
	h.loop.run(func() {
		sv.maxSenders.SetSelected("3")
		sv.save()
	})
	if got := h.app.Preferences().Int(prefMaxSenders); got != 3 {
		t.Errorf("preference %d after saving 3", got)
	}
	h.waitFor("the receiver to wait for up to three", func() bool {
		return v.many && v.atOnce == 3 && v.stopMany != nil && v.trayStatus() == "Code "+v.code
	})
	h.loop.run(func() {
		sv.maxSenders.SetSelected("1")
		sv.save()
	})
	h.waitFor("the receiver back to one at a time", func() bool { return !v.many && v.atOnce == 1 && v.waiting() })

	// A value out of range (an edited preferences file) is the default.
	h.app.Preferences().SetInt(prefMaxSenders, 9)
	h.check(func() bool {
		if n := sv.maxConcurrent(); n != defaultMaxSenders {
			t.Errorf("maxConcurrent with 9 stored: %d", n)
			return false
		}
		return true
	})
}

// TestReceiveManyCancelOne: Cancel on one card ends that transfer alone,
// mid-stream: its sender is told, its card says so, and another
// sender's question, open meanwhile, is still answered and its file
// arrives verified.
func TestReceiveManyCancelOne(t *testing.T) {
	h := newHarness(t)
	h.app.Preferences().SetInt(prefMaxSenders, 2)
	h.u.Start()
	v := h.u.recv
	code, port := h.listeningMany()
	// ann's file is large (sparse, 1 GiB): it is still moving when
	// Cancel is pressed.
	big := filepath.Join(t.TempDir(), "big.bin")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else if err := errors.Join(f.Truncate(1<<30), f.Close()); err != nil {
		t.Fatal(err)
	}
	small := writeFile(t, t.TempDir(), "small.bin", 20_000)
	addr := []string{"127.0.0.1:" + strconv.Itoa(port)}
	ann := testNode(t, app.Config{Name: "ann", NoHistory: true}).Send(t.Context(), app.SendConfig{
		Items: []event.Item{{Path: big}}, Paths: []string{big}, Addrs: addr, Code: code})
	bob := testNode(t, app.Config{Name: "bob", NoHistory: true}).Send(t.Context(), app.SendConfig{
		Items: []event.Item{{Path: small}}, Paths: []string{small}, Addrs: addr, Code: h.nextCode(code)})
	cards := map[string]*incomingCard{}
	h.waitFor("two open questions", func() bool {
		for _, c := range v.order {
			if c.ask.Visible() {
				cards[c.prog.conn.PeerName] = c
			}
		}
		return len(cards) == 2
	})
	h.tap(cards["ann"].accept)
	h.waitFor("ann's file moving", func() bool { return cards["ann"].prog.bar.Value > 0 })
	h.tap(cards["ann"].prog.cancel)
	if err := ann.Wait().Err; err == nil || !contains(err.Error(), errReceiverCancelled.Error()) {
		t.Fatalf("ann's send: %v; want the receiver's %q", err, errReceiverCancelled)
	}
	h.waitFor("ann's card to say it stopped", func() bool { return cards["ann"].prog.state == stateFailed })
	h.check(func() bool {
		if got := cards["ann"].prog.headline.Text; got != "Cancelled" {
			t.Errorf("ann's card says %q", got)
		}
		if !cards["bob"].ask.Visible() {
			t.Error("bob's question closed with ann's Cancel")
			return false
		}
		return true
	})
	h.tap(cards["bob"].accept)
	if err := bob.Wait().Err; err != nil {
		t.Fatalf("bob after ann was cancelled: %v", err)
	}
	h.waitFor("bob's card verified", func() bool { return cards["bob"].prog.state == stateVerified })
}

// TestSeveralWhileInTray: several senders at once while the window is in
// the tray. Two trusted devices (auto-accept on) send together: each
// card runs without the window, with its own notification at its start
// and at its end. Then a stranger's question brings the window back,
// with no notification for it.
func TestSeveralWhileInTray(t *testing.T) {
	ta := &trayApp{}
	h := newHarness(t, withTray(ta))
	h.app.Preferences().SetBool(prefTray, true)
	h.app.Preferences().SetBool(prefAutoTrusted, true)
	h.app.Preferences().SetInt(prefMaxSenders, 3)
	ids := map[string]device{}
	for _, name := range []string{"ann", "bob"} {
		ids[name] = newDevice(t, name)
		h.pin(name, ids[name])
	}
	h.u.Start()
	v := h.u.recv
	code, port := h.listeningMany()
	h.loop.run(h.u.WindowCloseRequested)
	addr := "127.0.0.1:" + strconv.Itoa(port)

	var sent []<-chan error
	for name, id := range ids {
		src := writeFile(t, t.TempDir(), name+".bin", 40_000)
		sent = append(sent, goSend(t, id, app.SendConfig{Addrs: []string{addr}, Pin: &stores.Device{Name: "Test desk", Key: h.id.Public()},
			Items: []event.Item{{Path: src}}}))
	}
	for _, done := range sent {
		if err := <-done; err != nil {
			t.Fatalf("trusted send: %v", err)
		}
	}
	h.waitFor("two verified cards", func() bool {
		n := 0
		for _, c := range v.order {
			if c.prog.state == stateVerified {
				n++
			}
		}
		return n == 2
	})
	h.waitFor("four notifications", func() bool { return len(ta.notifications()) == 4 })
	notes := strings.Join(ta.notifications(), "\n")
	for _, name := range []string{"ann", "bob"} {
		for _, want := range []string{"Receiving from " + name + ": 1 file (" + formatBytes(40_000) + "), into " + h.dir,
			"Received from " + name + ": " + name + ".bin, verified, in " + h.dir} {
			if !strings.Contains(notes, want) {
				t.Errorf("no notification %q in:\n%s", want, notes)
			}
		}
	}
	h.check(func() bool {
		if !h.u.WindowHidden() {
			t.Error("transfers from trusted devices brought the window out of the tray")
			return false
		}
		return true
	})

	src := writeFile(t, t.TempDir(), "report.pdf", 3000)
	done := goSend(t, newDevice(t, "cy"), app.SendConfig{Addrs: []string{addr}, Code: code,
		Items: []event.Item{{Path: src}}})
	var card *incomingCard
	h.waitFor("cy's question", func() bool {
		for _, c := range v.order {
			if c.ask.Visible() {
				card = c
			}
		}
		return card != nil
	})
	h.check(func() bool {
		if h.u.WindowHidden() {
			t.Error("a question left the window in the tray")
			return false
		}
		return true
	})
	if n := ta.notifications(); len(n) != 4 {
		t.Errorf("notifications after a question: %q, want none for it", n)
	}
	h.tap(card.accept)
	if err := <-done; err != nil {
		t.Fatalf("cy's send: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "report.pdf")); err != nil {
		t.Errorf("cy's file: %v", err)
	}
}

// listeningMany waits for the app's receiver of several senders to
// listen and returns its code and port.
func (h *harness) listeningMany() (code string, port int) {
	h.t.Helper()
	h.waitFor("the receiver to wait for several", func() bool {
		v := h.u.recv
		code, port = v.code, v.port
		return v.many && v.stopMany != nil && len(code) >= 6
	})
	return code, port
}

// nextCode waits for the app to show a code other than old, as it does
// once a sender's handshake used old up, and returns it.
func (h *harness) nextCode(old string) (code string) {
	h.t.Helper()
	h.waitFor("the next code", func() bool {
		code = h.u.recv.code
		return code != old && len(code) >= 6
	})
	return code
}

// An offer card whose sender claims the name of another sender in
// progress names both fingerprints; any other card is as before.
func TestSameNameOfferCard(t *testing.T) {
	o := event.Offer{PeerName: "ann", PeerFingerprint: "AAAA-1111", SameNameAs: []string{"BBBB-2222"}}
	line := sameNameLine(o)
	for _, want := range []string{"AAAA-1111", "BBBB-2222", "ann", "posing"} {
		if !strings.Contains(line, want) {
			t.Errorf("offer card's line %q lacks %q", line, want)
		}
	}
	o.SameNameAs = nil
	if line := sameNameLine(o); line != "" {
		t.Errorf("offer card without a clash adds %q", line)
	}
}
