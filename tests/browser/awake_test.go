package browser

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/receive"
	"github.com/ferry-project/ferry/core/web"
)

// TestPageKeepsScreenOn: while a send runs, the page asks to keep the
// screen on where the browser lets it (a secure context: the desktop's
// own loopback) and, where it cannot (a LAN address over plain HTTP, as
// a phone opens the link: no navigator.wakeLock there), says so in a
// sentence, with what a locked screen costs. Once the send has ended,
// the sentence goes.
func TestPageKeepsScreenOn(t *testing.T) {
	for _, c := range []struct {
		name, host string
		secure     bool
	}{{"lan", LANAddr, false}, {"loopback", "127.0.0.1", true}} {
		t.Run(c.name, func(t *testing.T) {
			b := Start(t)
			mux, id := pageServer(t, false)
			offered := make(chan struct{}, 1)
			r, err := receive.NewReceiver(receive.ReceiverConfig{Dir: t.TempDir(), Name: "Ana's laptop", Identity: id,
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

			f := filepath.Join(t.TempDir(), "notes.txt")
			must(t, os.WriteFile(f, []byte("from the phone\n"), 0o644))
			port := mux.Addr().(*net.TCPAddr).Port
			must(t, b.Open(web.Link(c.host, port, "246810", id.Fingerprint())))
			_, err = b.WaitText(30*time.Second, "Pick files")
			must(t, err)
			var has bool
			must(t, b.Eval(`!!navigator.wakeLock`, &has))
			if has != c.secure {
				t.Fatalf("navigator.wakeLock present: %v, want %v", has, c.secure)
			}
			must(t, b.Upload("#files", f))
			must(t, b.Click("#send"))
			select {
			case <-offered:
			case <-time.After(30 * time.Second):
				t.Fatal("no offer reached the receiver")
			}
			_, err = b.WaitText(10*time.Second, "to accept")
			must(t, err)
			var shown bool
			// keepAwake's answer comes after the click: wait for it.
			must(t, b.EvalFor(10*time.Second, `new Promise(r => setTimeout(() => r(!document.getElementById('awake-note').hidden), 500))`, &shown))
			// Headless Chromium grants the lock on loopback: a refusal
			// would show the sentence there too.
			if shown == c.secure {
				t.Errorf("the sentence shown: %v, on a page with a secure context: %v", shown, c.secure)
			}
			if shown {
				_, err = b.WaitText(time.Second, "Keep this screen on until the files are sent")
				must(t, err)
			}
			r.Accept()
			_, err = b.WaitText(30*time.Second, "Every file was checked")
			must(t, err)
			must(t, <-served)
			must(t, b.Eval(`!document.getElementById('awake-note').hidden`, &shown))
			if shown {
				t.Error("the sentence stays after the send")
			}
		})
	}
}
