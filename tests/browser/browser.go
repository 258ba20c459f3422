// Package browser drives a real headless Chromium for Ferry's browser
// tests and benchmarks: the page that a receiver serves, opened the way
// a phone opens it.
//
// What it promises:
//
//   - A phone: a 390×844 viewport at scale 2, a mobile Android user
//     agent and touch events, so the page lays itself out and names
//     itself as it would on a phone.
//   - A private browser: a temporary profile and a temporary download
//     folder, removed by Close; downloads are allowed without a prompt
//     and reported when complete (Downloads).
//   - No network but loopback. Chromium reaches 127.0.0.1 directly and
//     everything else through a proxy of this package on 127.0.0.1,
//     which forwards http://LANAddr:PORT/ (WebSockets too) to
//     127.0.0.1:PORT and refuses every other address. Chromium's own
//     background traffic (component updates, sync, safe browsing,
//     metrics, first-run pages) is switched off by flag as well. Nothing
//     reaches the machine's outer interface.
//   - A page opened as http://LANAddr:PORT/ is what a phone on the LAN
//     gets: not a secure context, so no service worker and no File
//     System Access API, and the receiver sees a LAN address in Host and
//     Origin. Opened as http://127.0.0.1:PORT/ it is a secure context
//     (loopback is trusted), as on the desktop that serves it.
//   - Memory read from outside the page: the renderer's and the browser
//     process's peak resident set (VmHWM, which the kernel keeps, so no
//     peak is missed between samples) and the page's JS heap, sampled.
//
// A test calls Start, which skips with the reason when Chromium is not
// installed (tests/install-deps.sh installs Debian's chromium). The
// benchmark calls New and handles the error itself.
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
)

// LANAddr is the LAN address the browser believes it reaches: the proxy
// maps it to 127.0.0.1. A page opened under it is not a secure context,
// as a page opened from a LAN address on a phone is not.
const LANAddr = "192.168.213.7"

// Phone is the emulated device: the viewport of a common phone, a
// mobile Chromium user agent on Android.
var Phone = device.Info{
	Name:      "phone",
	UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
	Width:     390,
	Height:    844,
	Scale:     2,
	Mobile:    true,
	Touch:     true,
}

// Browser is one headless Chromium with one tab.
type Browser struct {
	ctx       context.Context // the tab's chromedp context
	cancel    func()
	dir       string // profile and downloads, removed by Close
	proxy     *lanProxy
	Downloads string // where downloads land

	mu        sync.Mutex
	completed map[string]string // download GUID -> file path, once complete
	names     map[string]string // download GUID -> suggested file name
	progress  map[string]string // download GUID -> its last state, for a timeout's message
	changed   chan struct{}
	direct    string // a non-loopback address Chromium reaches itself (NewDirect)
}

// ExecPath returns the Chromium executable, or an error saying how to
// install it.
func ExecPath() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on PATH (tests/install-deps.sh installs Debian's chromium as root)")
}

// Start starts a browser for a test, skipping the test when Chromium is
// not installed and failing it when Chromium does not start. Cleanup
// closes it.
func Start(t testing.TB) *Browser {
	t.Helper()
	if _, err := ExecPath(); err != nil {
		// As root make test installs Chromium (tests/install-deps.sh):
		// CI must never pass a browser test by skipping it.
		if os.Geteuid() == 0 {
			t.Fatalf("no Chromium, which make test installs: %v", err)
		}
		t.Skipf("not root (as root, where make test installs Chromium, this fails): %v", err)
	}
	b, err := New(context.Background())
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// New starts a headless Chromium emulating Phone.
func New(parent context.Context) (*Browser, error) { return NewDirect(parent, "") }

// NewDirect is New, except that Chromium reaches the address direct
// itself, without the proxy: a benchmark that runs its peers inside a
// network namespace of its own, on an address of that namespace's
// loopback device that is not 127.0.0.0/8 (so that the page has no
// secure context, as on a phone), uses it to keep the proxy's copying
// out of what it measures. "" is New.
func NewDirect(parent context.Context, direct string) (*Browser, error) {
	exe, err := ExecPath()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ferry-browser-")
	if err != nil {
		return nil, err
	}
	b := &Browser{
		dir:       dir,
		Downloads: filepath.Join(dir, "downloads"),
		completed: map[string]string{},
		progress:  map[string]string{},
		names:     map[string]string{},
		changed:   make(chan struct{}, 1),
		direct:    direct,
	}
	if err := os.MkdirAll(b.Downloads, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if b.proxy, err = startProxy(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		// Root in CI: Chromium's sandbox refuses to run as root.
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater"),
		// Everything but loopback goes to the proxy, which reaches only
		// 127.0.0.1: nothing leaves the machine even if a page asks.
		chromedp.ProxyServer("http://"+b.proxy.addr()),
		// No name is ever looked up outside.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(int(Phone.Width), int(Phone.Height)),
		chromedp.UserAgent(Phone.UserAgent),
	)
	if direct != "" {
		opts = append(opts, chromedp.Flag("proxy-bypass-list", direct),
			chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE "+direct))
	}
	actx, acancel := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b.ctx = ctx
	b.cancel = func() { cancel(); acancel() }
	fail := func(err error) (*Browser, error) {
		b.Close()
		return nil, err
	}
	if err := chromedp.Do(ctx, chromedp.Emulate(Phone)); err != nil {
		return fail(fmt.Errorf("emulating a phone: %w", err))
	}
	if err := chromedp.ListenBrowser(ctx, b.onEvent); err != nil {
		return fail(err)
	}
	on := true
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: b.Downloads, EventsEnabled: &on,
	}); err != nil {
		return fail(fmt.Errorf("allowing downloads: %w", err))
	}
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		return fail(fmt.Errorf("enabling performance metrics: %w", err))
	}
	return b, nil
}

// onEvent records finished downloads. It runs in chromedp's read loop,
// so it only takes a lock.
func (b *Browser) onEvent(ev any) {
	switch e := ev.(type) {
	case *browser.EventDownloadWillBegin:
		b.mu.Lock()
		b.names[e.GUID] = e.SuggestedFilename
		b.mu.Unlock()
	case *browser.EventDownloadProgress:
		b.mu.Lock()
		b.progress[e.GUID] = fmt.Sprintf("%s, %.0f of %.0f bytes", e.State, e.ReceivedBytes, e.TotalBytes)
		b.mu.Unlock()
		if e.State != browser.DownloadProgressStateCompleted {
			return
		}
		b.mu.Lock()
		p := e.FilePath
		if p == "" {
			p = filepath.Join(b.Downloads, b.names[e.GUID])
		}
		b.completed[e.GUID] = p
		b.mu.Unlock()
		select {
		case b.changed <- struct{}{}:
		default:
		}
	}
}

// Close stops the browser and removes its profile and downloads.
func (b *Browser) Close() {
	b.cancel()
	b.proxy.close()
	os.RemoveAll(b.dir)
}

// Refused lists the host:port of every request the proxy refused: what
// the page asked for beyond loopback and LANAddr.
func (b *Browser) Refused() []string {
	b.proxy.mu.Lock()
	defer b.proxy.mu.Unlock()
	return append([]string(nil), b.proxy.refused...)
}

// CutConnections closes every connection the page has open to LANAddr
// (its WebSocket among them), as a dropped Wi-Fi does, and returns how
// many it closed.
func (b *Browser) CutConnections() int { return b.proxy.cut() }

// StallAt makes the page's connections through LANAddr stop forwarding
// in a direction once it has carried n bytes (the page's WebSocket,
// either way), the trickle bytes before n at about 3 MB/s, until
// Unstall; the channel is closed at the first stop. A test holds a
// transfer so at a point in its bytes, to cut, reload or look at the
// page there, however fast the page runs: a trickle of a few MiB lets
// the page's view catch up with the bytes before they stop. A stalled
// connection still ends at CutConnections; the next connections are
// held too, until Unstall.
func (b *Browser) StallAt(n, trickle int64) <-chan struct{} { return b.proxy.stallAt(n, trickle) }

// Unstall lets the stalled connections go on, and ends StallAt's hold.
func (b *Browser) Unstall() { b.proxy.unstall() }

// Context is the tab's chromedp context, for actions this package does
// not wrap.
func (b *Browser) Context() context.Context { return b.ctx }

// SetUserAgent makes the tab claim another browser from its next
// navigation on (a page that picks its behaviour by user agent).
func (b *Browser) SetUserAgent(ua string) error {
	_, err := chromedp.Call(b.ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua})
	return err
}

// Version is Chromium's product string, e.g. "Chrome/156.0.8078.114".
func (b *Browser) Version() string {
	v, err := chromedp.CallBrowser(b.ctx, browser.GetVersion, cdp.Empty{})
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return v.Product
}

// run runs actions with a timeout.
func (b *Browser) run(timeout time.Duration, actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// Open navigates to url and waits for the document to load. Only
// loopback and LANAddr URLs are allowed: anything else is a bug in the
// caller, refused before the browser sees it.
func (b *Browser) Open(url string) error {
	if !loopbackURL(url) && (b.direct == "" || !strings.HasPrefix(url, "http://"+b.direct+":")) {
		return fmt.Errorf("refusing to open %q: only 127.0.0.1, localhost and %s URLs", url, LANAddr)
	}
	return b.run(30*time.Second, chromedp.Navigate(url))
}

// Reload reloads the page, as a person pulling it down or a browser
// bringing back a page it dropped behind a locked screen does, and
// waits for it to load.
func (b *Browser) Reload() error {
	return b.run(30*time.Second, chromedp.Reload())
}

func loopbackURL(u string) bool {
	if u == "about:blank" {
		return true
	}
	for _, p := range []string{"http://127.0.0.1:", "http://localhost:", "http://" + LANAddr + ":"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// Upload sets files on the file input that sel selects, as a person
// picking them would, and fires its change event.
func (b *Browser) Upload(sel string, files ...string) error {
	return b.run(10*time.Second, chromedp.SetUploadFiles(chromedp.CSS(sel), files))
}

// Click clicks the element that sel selects.
func (b *Browser) Click(sel string) error {
	return b.run(10*time.Second, chromedp.Click(chromedp.CSS(sel)))
}

// SetValue sets the value of the input that sel selects and fires its
// input and change events.
func (b *Browser) SetValue(sel, value string) error {
	return b.Eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q);
		e.value = %q; e.dispatchEvent(new Event('input', {bubbles: true}));
		e.dispatchEvent(new Event('change', {bubbles: true})); return true })()`, sel, value), nil)
}

// Text is the visible text of the page.
func (b *Browser) Text() (string, error) {
	var s string
	return s, b.Eval(`document.body ? document.body.innerText : ""`, &s)
}

// Eval evaluates a JavaScript expression, awaiting it if it is a
// promise, and decodes its value into out (nil to ignore it).
func (b *Browser) Eval(expr string, out any) error {
	return b.EvalFor(30*time.Second, expr, out)
}

// EvalFor is Eval with a timeout of its own, for a promise that takes
// long (a transfer).
func (b *Browser) EvalFor(timeout time.Duration, expr string, out any) error {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// WaitText waits until the page's visible text holds one of want and
// returns which, or fails with the text the page showed.
func (b *Browser) WaitText(timeout time.Duration, want ...string) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		text, err := b.Text()
		if err != nil {
			return "", err
		}
		for _, w := range want {
			if strings.Contains(text, w) {
				return w, nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the page did not show any of %q within %v; it shows:\n%s", want, timeout, text)
		}
		// The page changes on its own events; a short nap between reads
		// of its text is the only way to watch it from outside.
		time.Sleep(50 * time.Millisecond)
	}
}

// Screenshot writes a PNG of the viewport to path.
func (b *Browser) Screenshot(path string) error {
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// WaitDownloads waits until n downloads have completed and returns their
// paths.
func (b *Browser) WaitDownloads(n int, timeout time.Duration) ([]string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		var paths []string
		for _, p := range b.completed {
			paths = append(paths, p)
		}
		b.mu.Unlock()
		if len(paths) >= n {
			return paths, nil
		}
		select {
		case <-b.changed:
		case <-deadline.C:
			return paths, fmt.Errorf("%d of %d downloads completed within %v; %s", len(paths), n, timeout, b.downloadStates())
		}
	}
}

// downloadStates says what became of every download begun: its name and
// its last state, for a test that waited in vain.
func (b *Browser) downloadStates() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var states []string
	for guid, name := range b.names {
		state, ok := b.progress[guid]
		if !ok {
			state = "no progress yet"
		}
		states = append(states, fmt.Sprintf("%q: %s", name, state))
	}
	sort.Strings(states)
	return fmt.Sprintf("%d begun: %s", len(states), strings.Join(states, "; "))
}

// JSHeap is the page's JS heap in use now, in bytes.
func (b *Browser) JSHeap() (int64, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	m, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		return 0, err
	}
	for _, x := range m.Metrics {
		if x.Name == "JSHeapUsedSize" {
			return int64(x.Value), nil
		}
	}
	return 0, errors.New("no JSHeapUsedSize metric")
}

// Memory is what the browser's processes used at their peak.
type Memory struct {
	RendererPeak int64 // the largest VmHWM of any renderer process: the page, its JS and its wasm memory
	BrowserPeak  int64 // the browser process's VmHWM: where Chromium keeps blob data
}

// PeakMemory reads the peak resident set of the browser process and of
// its renderers from /proc.
func (b *Browser) PeakMemory() (Memory, error) {
	var m Memory
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return m, errors.New("no browser process")
	}
	root := c.Browser.Process().Pid
	m.BrowserPeak = vmHWM(root)
	for _, pid := range descendants(root) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cmd), "--type=renderer") {
			m.RendererPeak = max(m.RendererPeak, vmHWM(pid))
		}
	}
	return m, nil
}

// descendants lists every process below pid.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, task.Name()))
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// vmHWM is pid's peak resident set in bytes, or 0 if it cannot be read.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Shot saves screenshots of the page as it is now into the folder that
// $FERRY_SCREENSHOTS names (make screenshots sets it): phone-NAME.png
// and phone-NAME-dark.png at the phone's size, in the light theme and
// in the dark one (prefers-color-scheme, as the system would set it),
// and with desktop also desktop-NAME.png and desktop-NAME-dark.png in a
// 1280x800 desktop window. Without $FERRY_SCREENSHOTS it does nothing.
func Shot(t testing.TB, b *Browser, name string, desktop bool) {
	t.Helper()
	dir := os.Getenv("FERRY_SCREENSHOTS")
	if dir == "" {
		return
	}
	sizes := []string{"phone"}
	if desktop {
		sizes = append(sizes, "desktop")
	}
	for _, size := range sizes {
		for _, theme := range []string{"light", "dark"} {
			file := size + "-" + name
			if theme == "dark" {
				file += "-dark"
			}
			if err := b.shotAs(filepath.Join(dir, file+".png"), size == "desktop", theme); err != nil {
				t.Errorf("screenshot %s: %v", file, err)
			}
		}
	}
}

// shotAs takes one screenshot in a desktop window or as the phone, in
// the light or dark theme, and puts the phone and the system's theme
// back afterwards.
func (b *Browser) shotAs(path string, desktop bool, theme string) error {
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	media := func(v string) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	}
	defer media("")
	defer chromedp.Do(ctx, chromedp.Emulate(Phone))
	if desktop {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
			return err
		}
	}
	if err := media(theme); err != nil {
		return err
	}
	// Two animation frames: the page has laid itself out and painted in
	// the new size and theme.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](
		`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		return err
	}
	return b.Screenshot(path)
}
