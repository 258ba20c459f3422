package browser

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/secure"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/web"
	ferrypage "github.com/ferry-project/ferry/gui/page"
	"github.com/ferry-project/ferry/tests/testkit/testid"
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
		t.Skip("skipping: gui/page has no ferry.wasm (run make wasm)")
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

// TestPageSends: the page picks two files and sends them to a receiver
// in this process, which asks, as the desktop app does, and accepts.
func TestPageSends(t *testing.T) {
	b := Start(t)
	mux, id := pageServer(t, false)
	dest := t.TempDir()
	offered := make(chan struct{}, 1)
	var r *transfer.Receiver
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: transfer.Ask,
		OnEvent: func(ev transfer.Event) {
			if _, ok := ev.(transfer.Offered); ok {
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
	Shot(t, b, "phone-send-1-opened")
	dir := t.TempDir()
	small := filepath.Join(dir, "notes.txt")
	large := filepath.Join(dir, "video.bin")
	must(t, os.WriteFile(small, []byte("from the phone\n"), 0o644))
	must(t, os.WriteFile(large, bytes.Repeat([]byte("0123456789abcdef"), 3<<16+7), 0o644))
	must(t, b.Upload("#files", small, large))
	_, err = b.WaitText(5*time.Second, "2 files")
	must(t, err)
	Shot(t, b, "phone-send-2-picked")
	must(t, b.Click("#send"))
	select {
	case <-offered:
	case <-time.After(30 * time.Second):
		t.Fatal("no offer reached the receiver")
	}
	_, err = b.WaitText(10*time.Second, "to accept")
	must(t, err)
	Shot(t, b, "phone-send-3-waiting")
	r.Accept()
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	must(t, err)
	Shot(t, b, "phone-send-4-done")
	must(t, <-served)
	for _, f := range []string{small, large} {
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
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{Dir: t.TempDir(), Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: transfer.AcceptAll})
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
	Shot(t, b, "phone-wrong-code")
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
	files := map[string][]byte{
		"photo.jpg": bytes.Repeat([]byte{0xff, 0xd8, 7, 9}, 1<<20+3), // 4 MiB and a bit: several slices
		"list.txt":  []byte("milk\neggs\n"),
	}
	var items []transfer.Item
	for name, body := range files {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, body, 0o644))
		items = append(items, transfer.Item{Path: p})
	}
	sent := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		_, err := transfer.Send(ctx, transfer.SendConfig{Addrs: []string{"page"}, Code: "246810", Identity: id,
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
	phone := host == LANAddr // the screenshots are a phone's
	if phone {
		Shot(t, b, "phone-receive-1-opened")
	}
	must(t, b.Click("#receive"))
	if phone {
		Shot(t, b, "phone-receive-2-receiving")
	}
	_, err = b.WaitText(60*time.Second, "Every file was checked")
	must(t, err)
	if phone {
		Shot(t, b, "phone-receive-3-received")
	}
	must(t, <-sent)
	paths, err := b.WaitDownloads(len(files), 30*time.Second)
	must(t, err)
	for _, p := range paths {
		want, ok := files[filepath.Base(p)]
		got, _ := os.ReadFile(p)
		if !ok || !bytes.Equal(got, want) {
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
	halfway := make(chan struct{})
	var once sync.Once
	r, err := transfer.NewReceiver(transfer.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: transfer.AcceptAll,
		OnEvent: func(ev transfer.Event) {
			if p, ok := ev.(transfer.Progress); ok && p.Done >= 4<<20 {
				once.Do(func() { close(halfway) })
			}
		}})
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
	must(t, b.Click("#send"))
	select {
	case <-halfway:
	case <-time.After(60 * time.Second):
		t.Fatal("the send never reached 4 MiB")
	}
	if n := b.CutConnections(); n == 0 {
		t.Fatal("the page had no connection through the proxy to cut")
	}
	_, err = b.WaitText(30*time.Second, "The connection dropped")
	must(t, err)
	Shot(t, b, "phone-send-dropped")
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
