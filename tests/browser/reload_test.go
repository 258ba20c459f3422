package browser

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/web"
	ferrypage "github.com/ferry-project/ferry/gui/page"
)

// TestPageReloadResumes: the page sends 256 MiB and is reloaded in the
// middle (a person pulling it down, or a phone's browser bringing the
// page back after the screen locked); the same file picked again on the
// reloaded page goes on where it stopped. The page keeps its key for
// this receiver in its origin's storage, so the receiver sees the same
// sender and offers the resume, prefix-checked as any: the file arrives
// identical, with resumed bytes above 0 and below its size. Opened on a
// LAN address as a phone opens it (no secure context).
func TestPageReloadResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: 256 MiB through the page twice takes half a minute or more (-short)")
	}
	const size = 256 << 20
	b := Start(t)
	mux, id := pageServer(t, false)
	dest := t.TempDir()
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll})
	must(t, err)
	// One transfer after another with the same code, as ferry receive
	// --keep --code does.
	type served struct {
		sum event.Summary
		err error
	}
	results := make(chan served, 4)
	go func() {
		for {
			sum, err := r.Serve(context.Background())
			if strings.Contains(fmt.Sprint(err), "receiver closed") {
				return
			}
			results <- served{sum, err}
		}
	}()
	t.Cleanup(func() { r.Close() })

	// Not a repeating pattern: a resume at the wrong offset would not
	// pass for the right one.
	body := make([]byte, size)
	rng := rand.NewChaCha8([32]byte{'f', 'e', 'r', 'r', 'y'})
	rng.Read(body)
	big := filepath.Join(t.TempDir(), "film.mp4")
	must(t, os.WriteFile(big, body, 0o644))

	port := mux.Addr().(*net.TCPAddr).Port
	must(t, b.Open(web.Link(LANAddr, port, "246810", id.Fingerprint())))
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	var before, after string
	must(t, b.Eval(`ferry.fingerprint`, &before))
	must(t, b.Upload("#files", big))
	// The page's WebSocket stops at a third of the file; the page is
	// reloaded there, and what it had sent then goes on to the receiver.
	midway := b.StallAt(size/3, 0)
	must(t, b.Click("#send"))
	select {
	case <-midway:
	case <-time.After(3 * time.Minute):
		t.Fatal("the send never reached a third of the file")
	}
	must(t, b.Reload())
	b.Unstall()
	if res := <-results; res.err == nil {
		t.Fatal("the transfer cut by the reload succeeded on the receiver")
	}
	_, err = b.WaitText(30*time.Second, "Pick files")
	must(t, err)
	// The page that comes back says what to do.
	_, err = b.WaitText(5*time.Second, "Pick the same file again and press Send: what had arrived is not sent again")
	must(t, err)
	must(t, b.Eval(`ferry.fingerprint`, &after))
	if before != after {
		t.Fatalf("the reloaded page has another key: %s, then %s", before, after)
	}
	must(t, b.Upload("#files", big))
	must(t, b.Click("#send"))
	_, err = b.WaitText(5*time.Minute, "Every file was checked")
	must(t, err)
	res := <-results
	if res.err != nil {
		t.Fatalf("the receiver, after the reload: %v", res.err)
	}
	if res.sum.ResumedBytes <= 0 || res.sum.ResumedBytes >= size {
		t.Errorf("resumed %d bytes of %d, want some but not all", res.sum.ResumedBytes, size)
	}
	t.Logf("resumed %d MiB of %d after the reload", res.sum.ResumedBytes>>20, size>>20)
	text, _ := b.Text()
	if !strings.Contains(text, "had already arrived before the connection dropped") {
		t.Errorf("the page does not say it resumed:\n%s", text)
	}
	// With nothing left to resume the kept key goes: a receiver that
	// pinned it would otherwise trust whatever reads the origin's
	// storage later.
	var kept bool
	must(t, b.Eval(`localStorage.getItem('ferry-key:' + new URLSearchParams(location.hash.slice(1)).get('fp')) !== null`, &kept))
	if kept {
		t.Error("the page still keeps its key after the send went through")
	}
	got, err := os.ReadFile(filepath.Join(dest, "film.mp4"))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("film.mp4: %d bytes (%v), want %d identical", len(got), err, len(body))
	}
}

// TestPageReloadReceiving: a page receiving from the desktop (core/app's
// ServePage and Send, as ferry send --to-browser runs them) is reloaded
// in the middle. A page keeps no part of a file that had not arrived
// whole, so the page that comes back says what was lost, and the
// desktop's side, whose send was cut after the page proved the code,
// keeps the page served (Page.Again) and sends everything again; the
// second send goes through.
func TestPageReloadReceiving(t *testing.T) {
	b := Start(t)
	n, err := app.New(app.Config{Name: "Ana's laptop", ConfigDir: t.TempDir(), NoHistory: true, PageFiles: ferrypage.Files})
	must(t, err)
	t.Cleanup(func() { n.Close() })
	page, err := n.ServePage("127.0.0.1:0", []string{LANAddr})
	must(t, err)
	t.Cleanup(func() { page.Close() })
	if !page.Event().HasWasm {
		t.Fatal("gui/page has no ferry.wasm (make wasm builds it)")
	}
	dir := t.TempDir()
	small := filepath.Join(dir, "list.txt")
	big := filepath.Join(dir, "video.mp4")
	must(t, os.WriteFile(small, []byte("milk\neggs\n"), 0o644))
	must(t, os.WriteFile(big, bytes.Repeat([]byte("0123456789abcdef"), 4<<20), 0o644)) // 64 MiB
	items := []event.Item{{FS: os.DirFS(dir), Path: "list.txt"}, {FS: os.DirFS(dir), Path: "video.mp4"}}
	send := func() chan app.Result {
		done := make(chan app.Result, 1)
		t := n.Send(context.Background(), app.SendConfig{Items: items, Page: page})
		go func() { done <- t.Wait() }()
		return done
	}
	// The page's WebSocket stops at 16 MiB toward the page, and the page
	// is reloaded there.
	midway := b.StallAt(16<<20, 0)
	first := send()

	must(t, b.Open(page.Event().Links[0]))
	_, err = b.WaitText(30*time.Second, "Receive")
	must(t, err)
	must(t, b.Click("#receive"))
	select {
	case <-midway:
	case <-time.After(2 * time.Minute):
		t.Fatal("the send never reached 16 MiB")
	}
	// Reload once the page has saved the first file, so that what it
	// then says is known.
	var saved bool
	must(t, b.EvalFor(time.Minute, `new Promise(r => { const f = () => document.querySelector('#list li[data-state="done"]') ? r(true) : setTimeout(f, 20); f(); })`, &saved))
	must(t, b.Reload())
	b.Unstall()
	res := <-first
	if res.Err == nil {
		t.Fatal("the send cut by the reload succeeded")
	}
	if !page.Again() {
		t.Fatalf("the page was not kept for a send again after %v", res.Err)
	}
	_, err = b.WaitText(30*time.Second, "stopped arriving when this page was left")
	must(t, err)
	text, _ := b.Text()
	for _, want := range []string{"1 file had arrived", "1 file (67 MB) did not arrive", "Press Receive, and Ana's laptop sends its files again"} {
		if !strings.Contains(text, want) {
			t.Errorf("the reloaded page does not say %q:\n%s", want, text)
		}
	}
	Shot(t, b, "receive-left", false)
	second := send()
	must(t, b.Click("#receive"))
	_, err = b.WaitText(2*time.Minute, "Every file was checked")
	must(t, err)
	if res := <-second; res.Err != nil {
		t.Fatalf("the send again: %v", res.Err)
	}
	if page.Again() {
		t.Error("a send that went through left the page for a send again")
	}
}
