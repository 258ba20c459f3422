package present

import (
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

func TestGauge(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var g Gauge
	g.Progress(t0, event.Progress{Total: 0})
	if g.Moving {
		t.Error("nothing to move: moving")
	}
	g.Progress(t0, event.Progress{Done: 0, Total: 10_000})
	g.Progress(t0.Add(time.Second), event.Progress{Done: 1000, Total: 10_000})
	if !g.Moving || g.Last.Done != 1000 {
		t.Fatalf("after two events: %+v", g)
	}
	if e := g.Estimate(t0.Add(time.Second)); e.Rate != 1000 || e.Left != 9 {
		t.Errorf("estimate: %+v, want 1000 B/s and 9 s left", e)
	}
	// Redraws without an event: the stall shows.
	g.Tick(t0.Add(2 * time.Second))
	g.Tick(t0.Add(3 * time.Second))
	if e := g.Estimate(t0.Add(3 * time.Second)); !e.Stalled {
		t.Errorf("two seconds of ticks without a byte: %+v, want stalled", e)
	}
	// A gauge that stopped moving takes no samples from ticks.
	var h Gauge
	h.Progress(t0, event.Progress{Done: 5, Total: 10})
	h.Moving = false
	h.Tick(t0.Add(time.Second))
	if n := len(h.win.samples); n != 1 {
		t.Errorf("stopped gauge: %d samples after a tick, want 1", n)
	}
}
