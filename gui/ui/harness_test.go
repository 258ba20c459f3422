package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/stores"
	"github.com/ferry-project/ferry/gui/page"
)

// uiLoop stands in for Fyne's UI goroutine. The test driver runs fyne.Do
// on the caller's goroutine, which would let engine events and test taps
// touch widgets at once; here every widget access, the test's included,
// runs on the loop's one goroutine, as in the real app.
type uiLoop struct {
	mu    sync.Mutex
	queue []func()
	wake  chan struct{}
	quit  chan struct{}
	done  chan struct{}
}

func newUILoop(t *testing.T) *uiLoop {
	l := &uiLoop{wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go l.loop()
	t.Cleanup(func() {
		close(l.quit)
		<-l.done
	})
	return l
}

func (l *uiLoop) loop() {
	defer close(l.done)
	for {
		l.mu.Lock()
		q := l.queue
		l.queue = nil
		l.mu.Unlock()
		for _, f := range q {
			f()
		}
		select {
		case <-l.wake:
		case <-l.quit:
			return
		}
	}
}

// do queues f without waiting: Config.Do.
func (l *uiLoop) do(f func()) {
	l.mu.Lock()
	l.queue = append(l.queue, f)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run runs f on the loop and waits for it.
func (l *uiLoop) run(f func()) {
	ch := make(chan struct{})
	l.do(func() {
		defer close(ch)
		f()
	})
	<-ch
}

type harness struct {
	t     *testing.T
	loop  *uiLoop
	app   fyne.App
	win   fyne.Window
	u     *UI
	id    nodeKey
	dir   string        // download folder
	store *stores.Trust // trusted devices, in a folder of the test's
}

// nodeKey is a harness device's key, as its Node tells it.
type nodeKey struct{ n *app.Node }

func (k nodeKey) Public() []byte      { return k.n.PublicKey() }
func (k nodeKey) Fingerprint() string { return k.n.Fingerprint() }

type harnessOpt func(*Config)

// newHarness builds a UI in a test window. Discovery is off; the receiver
// listens on loopback only; the device (its key, trust store and, with
// withHistory, history) lives in a folder of the test's.
func newHarness(t *testing.T, opts ...harnessOpt) *harness {
	t.Helper()
	return newHarnessOn(t, newUILoop(t), opts...)
}

// testNode is a device in a folder of the test's, dir when given: the
// real core/app Node, recording nothing unless cfg says so.
func testNode(t *testing.T, cfg app.Config) *app.Node {
	t.Helper()
	if cfg.ConfigDir == "" {
		cfg.ConfigDir = filepath.Join(t.TempDir(), "config")
	}
	if cfg.Name == "" {
		cfg.Name = "Test desk"
	}
	cfg.PageFiles = page.Files
	// The Node asks the UI whether to record, and tells it its
	// warnings, as the app's does.
	var n *app.Node
	cfg.KeepHistory = func() bool {
		u, ok := harnessUIs.Load(n)
		return !ok || u.(*UI).KeepHistory()
	}
	cfg.OnWarning = func(err error) {
		if u, ok := harnessUIs.Load(n); ok {
			u.(*UI).Warn(err)
		}
	}
	n, err := app.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// harnessUIs maps a test's Node to its UI, for KeepHistory.
var harnessUIs sync.Map

// withNode gives the harness a Node made with cfg.
func withNode(t *testing.T, cfg app.Config) harnessOpt {
	n := testNode(t, cfg)
	return func(c *Config) { c.Node = n }
}

// newHarnessOn builds a harness whose widgets run on loop. Two devices in
// one test share a loop: Fyne's caches are global, and the real app
// touches them from one goroutine only.
func newHarnessOn(t *testing.T, loop *uiLoop, opts ...harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, loop: loop, dir: t.TempDir()}
	h.app = test.NewTempApp(t)
	h.app.Preferences().SetString(prefDir, h.dir)
	h.app.Preferences().SetString(prefName, "Test desk")
	h.loop.run(func() {
		h.win = h.app.NewWindow("Ferry")
		cfg := Config{
			App: h.app, Window: h.win,
			Do:         h.loop.do,
			Listen:     "127.0.0.1:0",
			Hosts:      func() []string { return []string{"127.0.0.1"} },
			OpenFolder: func(string) error { return nil },
		}
		for _, o := range opts {
			o(&cfg)
		}
		if cfg.Node == nil {
			cfg.Node = testNode(t, app.Config{NoHistory: true})
		}
		h.id, h.store = nodeKey{cfg.Node}, cfg.Node.Trust()
		h.u = New(cfg)
		harnessUIs.Store(cfg.Node, h.u)
		h.win.Resize(fyne.NewSize(960, 640))
	})
	t.Cleanup(func() {
		h.u.Close()
		h.loop.run(func() { h.win.Close() })
	})
	return h
}

func noReceive(c *Config) { c.NoReceive = true }

// waitFor polls cond on the UI loop until it holds or the deadline passes.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var ok bool
		h.loop.run(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var markup string
			h.loop.run(func() { markup = test.RenderToMarkup(h.win.Canvas()) })
			h.t.Fatalf("timed out waiting for %s; window:\n%s", what, markup)
		}
		<-tick.C
	}
}

// screen returns the window's rendered widget tree as markup.
func (h *harness) screen() string {
	var s string
	h.loop.run(func() { s = test.RenderToMarkup(h.win.Canvas()) })
	return s
}

// check runs f on the UI loop. f reports a failure with t.Error and
// returns false; check then stops the test here, on the test's goroutine,
// where t.FailNow must run (on the loop's it would stop the loop).
func (h *harness) check(f func() bool) {
	h.t.Helper()
	ok := true
	h.loop.run(func() { ok = f() })
	if !ok {
		h.t.FailNow()
	}
}

func (h *harness) tap(b *widget.Button) {
	h.t.Helper()
	h.loop.run(func() {
		if b.Disabled() {
			h.t.Errorf("button %q is disabled", b.Text)
			return
		}
		test.Tap(b)
	})
}

// drop simulates dropping paths on the window.
func (h *harness) drop(paths ...string) {
	var uris []fyne.URI
	for _, p := range paths {
		uris = append(uris, storage.NewFileURI(p))
	}
	h.loop.run(func() { h.u.Drop(fyne.NewPos(100, 100), uris) })
}

// writeFile makes a file of n pseudo-random-ish bytes under dir.
func writeFile(t *testing.T, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// device is another device in the test, as another computer runs it: a
// real core/app Node in a config folder of its own, recording nothing.
// Public is its key, for the harness's pin.
type device struct{ *app.Node }

func newDevice(t *testing.T, name string) device {
	t.Helper()
	return device{testNode(t, app.Config{Name: name, NoHistory: true})}
}

func (d device) Public() []byte { return d.PublicKey() }

// goSend sends cfg from d on a goroutine the test owns, cancelled and
// waited for at cleanup, and returns its error's channel.
func goSend(t *testing.T, d device, cfg app.SendConfig) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	tr := d.Send(ctx, cfg)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		done <- tr.Wait().Err
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return done
}
