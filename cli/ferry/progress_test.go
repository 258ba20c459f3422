package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

const mib = 1 << 20

func TestPlainProgressLine(t *testing.T) {
	got := plainProgress(event.Progress{Done: 412 * mib, Total: 1024 * mib, Rate: 110 * mib, ETA: 5, Current: "big.iso"})
	want := "412 MiB / 1.0 GiB (40%) 110 MiB/s eta 5s  current: big.iso"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestPlainProgressEveryTwoSeconds(t *testing.T) {
	var stderr bytes.Buffer
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	pr := newProgress(&printer{stderr: &stderr}, progressPlain, clock.now)
	ev := event.Progress{Total: 100 * mib, Current: "big.iso"}
	// Events every 250ms for 5s: lines at 0s, 2s and 4s.
	for i := 0; i <= 20; i++ {
		ev.Done = int64(i) * 5 * mib
		pr.update(ev)
		clock.advance(250 * time.Millisecond)
	}
	pr.finish(true)
	out := stderr.String()
	if strings.ContainsRune(out, '\r') {
		t.Errorf("plain progress wrote a carriage return: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		"ferry: 0 B / 100 MiB (0%)  current: big.iso",
		"ferry: 40 MiB / 100 MiB (40%)  current: big.iso",
		"ferry: 80 MiB / 100 MiB (80%)  current: big.iso",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestProgressOff(t *testing.T) {
	var stderr bytes.Buffer
	pr := newProgress(&printer{stderr: &stderr, quiet: true}, progressOff, time.Now)
	pr.update(event.Progress{Done: 1, Total: 2})
	pr.finish(false)
	if stderr.Len() != 0 {
		t.Errorf("quiet progress wrote %q", stderr.String())
	}
}

func TestBarProgress(t *testing.T) {
	var stderr bytes.Buffer
	p := &printer{stderr: &stderr}
	pr := newProgress(p, progressBar, time.Now)
	pr.update(event.Progress{Done: 10 * mib, Total: 100 * mib, Current: "dir/big.iso"})
	p.infof("a line between redraws")
	pr.update(event.Progress{Done: 100 * mib, Total: 100 * mib, Current: "dir/big.iso"})
	pr.finish(true)
	out := stderr.String()
	for _, want := range []string{"\r", "big.iso", "100%", "MiB", "ferry: a line between redraws\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output lacks %q: %q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("bar output does not end its line: %q", out)
	}
}

func TestHumanDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{850 * time.Millisecond, "850ms"}, {5 * time.Second, "5s"}, {1499 * time.Millisecond, "1s"}, {42 * time.Second, "42s"},
		{65 * time.Second, "1m05s"}, {2*time.Hour + 3*time.Minute, "2h03m"},
	}
	for _, tt := range tests {
		if got := humanDuration(tt.d); got != tt.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestBarRedrawsThrottled: events that come faster than the bar's
// throttle are not all drawn: progressbar renders at most once per
// barThrottle, and an event that renders nothing writes nothing. (The
// clock bounds the count of redraws here, not a speed.)
func TestBarRedrawsThrottled(t *testing.T) {
	var stderr bytes.Buffer
	pr := newProgress(&printer{stderr: &stderr}, progressBar, time.Now)
	pr.cols = func() int { return 100 }
	pr.tickEvery = 0
	const n = 2000
	start := time.Now()
	for i := 1; i <= n; i++ {
		pr.update(event.Progress{Done: int64(i) * mib, Total: 4 * n * mib, Current: "big.iso"})
	}
	elapsed := time.Since(start)
	draws := strings.Count(stderr.String(), "\r")
	if limit := int(elapsed/barThrottle) + 1; draws < 1 || draws > limit {
		t.Errorf("%d events in %v drew %d times; the throttle allows 1 to %d", n, elapsed, draws, limit)
	}
	pr.finish(true)
	if !strings.Contains(lastDraw(stderr.String()), "100% [") {
		t.Errorf("the last state was not drawn at once: %q", lastDraw(stderr.String()))
	}
}
