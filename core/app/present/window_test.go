package present

import (
	"testing"
	"time"
)

// feed adds samples to w every step from t0, done growing by per each
// step, and returns the time of the last.
func feed(w *Window, t0 time.Time, step time.Duration, n int, done, per int64) (time.Time, int64) {
	t := t0
	for i := 0; i < n; i++ {
		w.Add(t, done)
		t, done = t.Add(step), done+per
	}
	return t.Add(-step), done - per
}

func TestWindowRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var w Window
	if _, known := w.Rate(); known {
		t.Error("empty window: rate known")
	}
	w.Add(t0, 0)
	w.Add(t0.Add(RateMinOf-time.Millisecond), 500)
	if _, known := w.Rate(); known {
		t.Error("window shorter than RateMinOf: rate known")
	}
	w.Add(t0.Add(RateMinOf), 1000)
	if r, known := w.Rate(); !known || r != 1000 {
		t.Errorf("rate over 1 s of 1000 bytes = %v, %v; want 1000, true", r, known)
	}
}

// TestWindowForgets: only the last RateSpan counts, so that a burst
// long ago no longer lifts the rate.
func TestWindowForgets(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var w Window
	last, done := feed(&w, t0, time.Second, 10, 0, 10_000) // 10 kB/s for 10 s
	feed(&w, last.Add(time.Second), time.Second, 10, done+1000, 1000)
	if r, _ := w.Rate(); r != 1000 {
		t.Errorf("rate after 10 s at 1000 B/s = %v, want 1000", r)
	}
}

// TestWindowBounded: a window fed far faster than it forgets keeps at
// most maxSamples.
func TestWindowBounded(t *testing.T) {
	var w Window
	feed(&w, time.Unix(1000, 0), time.Millisecond, 1000, 0, 1)
	if len(w.samples) > maxSamples {
		t.Errorf("%d samples kept, want at most %d", len(w.samples), maxSamples)
	}
}

func TestWindowEstimate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var w Window
	last, done := feed(&w, t0, 500*time.Millisecond, 5, 0, 500) // 1000 B/s
	if e := w.Estimate(last, done, done+5000); e.Stalled || e.Rate != 1000 || e.Left != 5 {
		t.Errorf("moving: %+v, want rate 1000, 5 s left", e)
	}
	// The same count, sampled at each redraw, until StallAfter.
	w.Add(last.Add(StallAfter-time.Millisecond), done)
	if e := w.Estimate(last.Add(StallAfter-time.Millisecond), done, done+5000); e.Stalled {
		t.Errorf("stalled before StallAfter: %+v", e)
	}
	at := last.Add(StallAfter)
	w.Add(at, done)
	if e := w.Estimate(at, done, done+5000); e != (Estimate{Stalled: true}) {
		t.Errorf("after StallAfter without a byte: %+v, want stalled alone", e)
	}
	// A byte moves again: no longer stalled.
	w.Add(at.Add(time.Second), done+1)
	if e := w.Estimate(at.Add(time.Second), done+1, done+5000); e.Stalled {
		t.Errorf("moving again: %+v", e)
	}
	var fresh Window
	if e := fresh.Estimate(t0, 0, 100); e != (Estimate{}) {
		t.Errorf("no samples: %+v, want nothing known", e)
	}
}
