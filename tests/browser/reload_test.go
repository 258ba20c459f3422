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
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/web"
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
	midway := make(chan struct{})
	var once sync.Once
	r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: dest, Name: "Ana's laptop", Identity: id,
		Listener: mux, Code: "246810", Policy: receive.AcceptAll,
		OnEvent: func(ev event.Event) {
			if p, ok := ev.(event.Progress); ok && p.Done >= size/3 {
				once.Do(func() { close(midway) })
			}
		}})
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
	must(t, b.Click("#send"))
	select {
	case <-midway:
	case <-time.After(3 * time.Minute):
		t.Fatal("the send never reached a third of the file")
	}
	must(t, b.Reload())
	if res := <-results; res.err == nil {
		t.Fatal("the transfer cut by the reload succeeded on the receiver")
	}
	_, err = b.WaitText(30*time.Second, "Pick files")
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
	got, err := os.ReadFile(filepath.Join(dest, "film.mp4"))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("film.mp4: %d bytes (%v), want %d identical", len(got), err, len(body))
	}
}
