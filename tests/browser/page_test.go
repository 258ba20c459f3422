package browser

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/send"
	"github.com/ferry-project/ferry/core/testkit/testid"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
	ferrypage "github.com/ferry-project/ferry/gui/page"
)

// These tests run the page (core/web's server, ferry.wasm, page.js,
// save.js) in Chromium against core/transfer in this process, opened as
// a phone on the LAN opens it. They need ferry.wasm in gui/page
// (make wasm, which every make target that tests runs first) and skip
// without it. tests/browser_e2e_test.go does the same against the real
// bin/ferry.

func pageServer(t *testing.T, toBrowser bool) (*web.Mux, *secure.Identity) {
	t.Helper()
	srv, err := web.NewServer(web.Config{Name: "Ana's laptop", ToBrowser: toBrowser, Files: ferrypage.Files})
	if err != nil {
		t.Fatal(err)
	}
	if !srv.HasWasm {
		// make test builds the wasm first: as root (CI) its absence fails.
		if os.Geteuid() == 0 {
			t.Fatal("gui/page has no ferry.wasm (make wasm builds it)")
		}
		t.Skip("not root (as root, where make test builds it, this fails): gui/page has no ferry.wasm (run make wasm)")
	}
	id := testid.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := web.NewMux(ln, srv)
	t.Cleanup(func() { mux.Close() })
	return mux, id
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPageSends: the page picks three files and sends them to a
// receiver in this process, which asks, as the desktop app does, and
// accepts. Midway the page's connection stalls (Browser.StallAt) so
// that the page can be seen sending: one file checked, one moving with
// its bar, one waiting.
func TestPageSends(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	dest := t.TempDir()
	offered := make(chan struct{}, 1)
	var r *receive.Receiver
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.Ask,
		OnEvent: func(ev event.Event) {
			if _, ok := ev.(event.Offer); ok {
				offered <- struct{}{}
			}
		}})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()

	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	Shot(t, b, "send-1-opened", false)
	dir := t.TempDir()
	small := filepath.Join(dir, "notes.txt")
	large := filepath.Join(dir, "holiday-video.mp4")
	photo := filepath.Join(dir, "beach.jpg")
	must(t, os.WriteFile(small, []byte("from the phone\n"), 0o644))
	must(t, os.WriteFile(large, bytes.Repeat([]byte("0123456789abcdef"), 3<<20+7), 0o644)) // 48 MiB
	must(t, os.WriteFile(photo, bytes.Repeat([]byte{0xff, 0xd8, 1, 2}, 600_000), 0o644))
	must(t, b.Upload("#files", small, large, photo))
	_, err = b.WaitText(5*time.Second, "3 files")
	must(t, err)
	Shot(t, b, "send-2-picked", true)
	midway := b.StallAt(8<<20, 4<<20)
	must(t, b.Click("#send"))
	select {
	case <-offered:
	case <-time.After(30 * time.Second):
		t.Fatal("no offer reached the receiver")
	}
	_, err = b.WaitText(10*time.Second, "to accept")
	must(t, err)
	Shot(t, b, "send-3-waiting", false)
	r.Accept()
	select {
	case <-midway:
	case <-time.After(60 * time.Second):
		t.Fatal("the send never reached 8 MiB")
	}
	_, err = b.WaitText(30*time.Second, "Sending 2 of 3")
	must(t, err) // a stalled tunnel ends with the browser (Start's cleanup)
	Shot(t, b, "send-4-sending", true)
	b.Unstall()
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	must(t, err)
	Shot(t, b, "send-5-done", true)
	must(t, <-served)
	for _, f := range []string{small, large, photo} {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(dest, filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (%v), want %d", filepath.Base(f), len(got), err, len(want))
		}
	}
}

// TestPageWrongCode: a link with a wrong code gets the page's own words.
func TestPageWrongCode(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: t.TempDir(), Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	go r.Serve(context.Background())

	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "135799", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	f := filepath.Join(t.TempDir(), "notes.txt")
	must(t, os.WriteFile(f, []byte("a note from the phone\n"), 0o644))
	must(t, b.Upload("#files", f))
	must(t, b.Click("#send"))
	_, err = b.WaitText(30*time.Second, "did not accept the code")
	must(t, err)
	Shot(t, b, "wrong-code", false)
}

// TestPageOtherFingerprint: the device that answers knows the code but
// is not the one whose fingerprint the link carries (another device
// showing the same code). The page says so plainly, and the transfer
// goes on, as gui/page/wasm's contract has it.
func TestPageOtherFingerprint(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: t.TempDir(), Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll})
	must(t, err)
	t.Cleanup(func() { r.Close() })
	served := make(chan error, 1)
	go func() { _, err := r.Serve(context.Background()); served <- err }()

	other := testid.New(t)
	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", other.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	f := filepath.Join(t.TempDir(), "notes.txt")
	must(t, os.WriteFile(f, []byte("a note from the phone\n"), 0o644))
	must(t, b.Upload("#files", f))
	must(t, b.Click("#send"))
	_, err = b.WaitText(30*time.Second, "Every file was checked")
	must(t, err)
	text, _ := b.Text()
	if !strings.Contains(text, "Does not match the QR code") || strings.Contains(text, "Matches the QR code") {
		t.Errorf("the page does not say the fingerprint differs:\n%s", text)
	}
	Shot(t, b, "other-fingerprint", false)
	must(t, <-served)
}

// TestPageReceives: a sender in this process sends to the page (the
// desktop's "send to a phone"), which saves each file through the
// browser's downloads: opened at the LAN address with the memory method,
// as a phone does, and opened at 127.0.0.1 with the stream method
// through sw.js, under the real server's Content-Security-Policy.
func TestPageReceives(t *testing.T) {
	for _, c := range []struct{ host, words string }{
		{LANAddr, "once it has arrived whole"},
		{"127.0.0.1", "as it arrives"},
	} {
		t.Run(c.host, func(t *testing.T) { pageReceives(t, c.host, c.words) })
	}
}

func pageReceives(t *testing.T, host, words string) {
	b := Start(t)
	mux, id := pageServer(t, true)
	dir := t.TempDir()
	files := []struct {
		name string
		body []byte
	}{
		{"list.txt", []byte("milk\neggs\n")},
		{"photo.jpg", bytes.Repeat([]byte{0xff, 0xd8, 7, 9}, 4<<20+3)}, // 16 MiB and a bit: several slices
		{"recording.m4a", bytes.Repeat([]byte("m4a!"), 300_000)},
	}
	var items []transfer.Item
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		must(t, os.WriteFile(p, f.body, 0o644))
		items = append(items, transfer.Item{Path: p})
	}
	// Midway, for the phone's screenshot of the page receiving, the
	// page's WebSocket trickles past 6 MiB and stalls at 12 MiB, in the
	// second file, until the test has seen it there (Browser.StallAt; a
	// hold by the sender's progress events, at most every 250 ms, can
	// come after the last byte).
	phone := host == LANAddr // the screenshots are a phone's; only LANAddr goes through the proxy
	var midway <-chan struct{}
	if phone {
		midway = b.StallAt(12<<20, 6<<20)
	}
	sent := make(chan error, 1)
	go func() {
		_, err := send.Send(context.Background(), send.SendConfig{Addrs: []string{"page"}, Code: "246810", Identity: id,
			Name: "Ana's laptop", Items: items,
			Dialer: func(ctx context.Context, _ string) (net.Conn, error) { return mux.Accept() }})
		sent <- err
	}()

	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(host, port, "246810", id.Fingerprint())))
	_, err := b.WaitText(30*time.Second, "Receive")
	must(t, err)
	text, _ := b.Text()
	if !bytes.Contains([]byte(text), []byte(words)) {
		t.Errorf("the receive view does not say how this browser saves (%q):\n%s", words, text)
	}
	if phone {
		Shot(t, b, "receive-1-opened", false)
	}
	must(t, b.Click("#receive"))
	if phone {
		select {
		case <-midway:
		case <-time.After(60 * time.Second):
			t.Fatal("the send never reached 12 MiB")
		}
		_, err = b.WaitText(30*time.Second, "Receiving 2 of 3")
		must(t, err) // a stalled tunnel ends with the browser (Start's cleanup)
		Shot(t, b, "receive-2-receiving", true)
		b.Unstall()
	}
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	must(t, err)
	if phone {
		Shot(t, b, "receive-3-received", false)
	}
	must(t, <-sent)
	paths, err := b.WaitDownloads(len(files), 30*time.Second)
	must(t, err)
	for _, p := range paths {
		var want []byte
		for _, f := range files {
			if f.name == filepath.Base(p) {
				want = f.body
			}
		}
		got, _ := os.ReadFile(p)
		if want == nil || !bytes.Equal(got, want) {
			t.Errorf("download %s: %d bytes, want %d", p, len(got), len(want))
		}
	}
}

// TestPageResumes: the Wi-Fi drops mid-send (the harness cuts the page's
// WebSocket where it crosses the proxy); the page says so, and pressing
// Send again with the same files picked resumes where it stopped.
func TestPageResumes(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	dest := t.TempDir()
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll})
	must(t, err)
	// One transfer after another with the same code, as ferry receive
	// --keep --code does.
	results := make(chan error, 4)
	go func() {
		for {
			_, err := r.Serve(context.Background())
			if strings.Contains(fmt.Sprint(err), "receiver closed") {
				return
			}
			results <- err
		}
	}()
	t.Cleanup(func() { r.Close() })

	big := filepath.Join(t.TempDir(), "film.mp4")
	body := bytes.Repeat([]byte("frame-0123456789"), 3<<20) // 48 MiB
	must(t, os.WriteFile(big, body, 0o644))
	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	must(t, b.Upload("#files", big))
	// The page's WebSocket stops at 4 MiB, and is cut there.
	halfway := b.StallAt(4<<20, 0)
	must(t, b.Click("#send"))
	select {
	case <-halfway:
	case <-time.After(60 * time.Second):
		t.Fatal("the send never reached 4 MiB")
	}
	n := b.CutConnections()
	b.Unstall()
	if n == 0 {
		t.Fatal("the page had no connection through the proxy to cut")
	}
	_, err = b.WaitText(30*time.Second, "The connection dropped")
	must(t, err)
	Shot(t, b, "send-dropped", false)
	if err := <-results; err == nil {
		t.Fatal("the cut transfer succeeded on the receiver")
	}
	must(t, b.Click("#send"))
	_, err = b.WaitText(120*time.Second, "Every file was checked")
	must(t, err)
	if err := <-results; err != nil {
		t.Fatalf("the receiver, after the resume: %v", err)
	}
	text, _ := b.Text()
	if !strings.Contains(text, "had already arrived before the connection dropped") {
		t.Errorf("the page does not say it resumed:\n%s", text)
	}
	got, err := os.ReadFile(filepath.Join(dest, "film.mp4"))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("film.mp4: %d bytes (%v), want %d identical", len(got), err, len(body))
	}
}
