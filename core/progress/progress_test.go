package progress

import (
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/diag"
)

// TestProgressETASane: at a crawl the ETA is 0 (unknown), never an
// overflowed or absurd figure; at a steady rate it is the bytes left
// over the rate.
func TestProgressETASane(t *testing.T) {
	var got []event.Progress
	emit := func(e event.Event) {
		if p, ok := e.(event.Progress); ok {
			got = append(got, p)
		}
	}
	for _, tc := range []struct {
		name     string
		total    int64
		rate     float64 // bytes per second before the event
		wantZero bool
	}{
		{"crawl over a TiB", 1 << 40, 1e-3, true},
		{"steady", 100 << 20, 10 << 20, false},
	} {
		got = nil
		m := New(emit, &diag.Timers{}, "", tc.total, 1)
		now := time.Now()
		m.started, m.lastEmit, m.rate = now.Add(-10*time.Second), now.Add(-time.Second), tc.rate
		m.Add(int64(tc.rate)) // as many bytes as the rate moves in the second since the last event
		if len(got) != 1 {
			t.Fatalf("%s: %d events", tc.name, len(got))
		}
		eta := time.Duration(got[0].ETA * float64(time.Second))
		switch {
		case eta < 0 || eta > maxETA:
			t.Errorf("%s: ETA %v", tc.name, eta)
		case tc.wantZero && eta != 0:
			t.Errorf("%s: ETA %v, want 0 (unknown)", tc.name, eta)
		case !tc.wantZero && (eta < 9*time.Second || eta > 11*time.Second):
			t.Errorf("%s: ETA %v, want about 10s", tc.name, eta)
		}
	}
}
