package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
)

// manyRows shows each receiver's state: one row each, redrawn, on a
// terminal; a plain line per receiver every plainEvery elsewhere.
//
// On a terminal each row is fitted to the terminal's width at every
// redraw and never reaches its last column (a row that wraps would leave
// a line behind at each redraw). A receiver that is moving bytes gets its
// own progressbar bar (barline.go), the single-receiver progress line
// labelled with its name: the rate and ETA over the same window,
// "stalled" when it stopped. Each bar renders into its own buffer and
// the rows are composed here, the cursor moved up over them at each
// redraw. The rows are rewritten when one of them changed (each bar
// renders at most once per its throttle) or a receiver's state did; a
// ticker redraws every tickEvery so that a stall shows even when no
// receiver reports anything.
type manyRows struct {
	rowScreen // under mu
	mode      progressMode
	dests     []manyDest

	mu   sync.Mutex
	rows []manyRow // per dest
}

// manyRow is one receiver's row.
type manyRow struct {
	label     string
	state     string        // what it shows when not moving bytes
	gauge     present.Gauge // its bytes: while they move, the row is a progress line
	bar       *barLine      // from its first progress
	lastPrint time.Time
}

func newManyRows(p *printer, mode progressMode, now func() time.Time, dests []manyDest) *manyRows {
	r := &manyRows{rowScreen: newRowScreen(p, now), mode: mode, dests: dests, rows: make([]manyRow, len(dests))}
	for i, d := range dests {
		r.rows[i] = manyRow{label: safe(d.dest.label), state: "connecting"}
		if d.err != nil {
			r.rows[i].state = "not found"
		}
	}
	return r
}

func (r *manyRows) label(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows[i].label
}

// onEvent is told receiver i's events (core/app's SendMany, never
// concurrently). Its Done or Error is reportMany's to print, with what
// only the end knows.
func (r *manyRows) onEvent(i int, ev event.Event) {
	switch ev.(type) {
	case event.Done, event.Error:
		return
	}
	r.p.event(tag(ev, i, r.dests[i].t.value))
	r.mu.Lock()
	var line string
	w := &r.rows[i]
	w.gauge.Moving = false
	switch e := ev.(type) {
	case event.Connected:
		if r.dests[i].pin == nil {
			w.label = peerLabel(e.PeerName, e.PeerFingerprint)
		}
		w.state = "waiting for it to accept"
		line = fmt.Sprintf("[%d] connected to %s, waiting for it to accept", i+1, w.label)
	case event.Accepted:
		w.state = "accepted: " + describeOffer(e.Offer)
		line = fmt.Sprintf("[%d] %s accepted: sending %s", i+1, w.label, humanBytes(e.TotalBytes))
	case event.Progress:
		line = r.progressed(i, e)
	}
	r.mu.Unlock()
	_, progress := ev.(event.Progress)
	r.show(line, !progress, progress)
}

// progressed notes receiver i's progress e and returns its plain line,
// when one is due; r.mu is held.
func (r *manyRows) progressed(i int, e event.Progress) string {
	w := &r.rows[i]
	if e.Total > 0 && (w.bar == nil || w.bar.total != e.Total) {
		w.bar = newBarLine(e.Total, r.throttle)
	}
	w.gauge.Progress(r.now(), e)
	if r.mode == progressPlain {
		if t := r.now(); w.lastPrint.IsZero() || t.Sub(w.lastPrint) >= plainEvery {
			w.lastPrint = t
			return fmt.Sprintf("[%d] %s: %s", i+1, w.label, plainProgress(e))
		}
	}
	return ""
}

// ended notes that receiver i's session is over, before the others'
// (core/app's ManyConfig.OnEnded).
func (r *manyRows) ended(i int, sum event.Summary, err error) {
	r.mu.Lock()
	w := &r.rows[i]
	w.gauge.Moving = false
	if err == nil {
		w.state = "done: " + describeSummary(sum)
	} else {
		_, kind, _ := classify(err)
		w.state = "failed: " + kindWords(kind)
	}
	r.mu.Unlock()
	r.show("", true, false)
}

// show redraws the rows on a terminal (forced on a change of state);
// elsewhere it prints line, if any: a progress line or a message.
func (r *manyRows) show(line string, force, progress bool) {
	switch {
	case r.mode == progressBar:
		r.draw(force)
	case line == "" || r.mode == progressOff:
	case progress:
		r.p.progressLine(line)
	default:
		r.p.infof("%s", line)
	}
}

// row renders receiver i's row in at most cols-1 cells; r.mu is held.
func (r *manyRows) row(i, cols int, t time.Time) string {
	w := &r.rows[i]
	bar := w.bar
	if !w.gauge.Moving {
		bar = nil
	}
	return renderRow(int64(i+1), w.label, w.state, bar, &w.gauge, t, cols)
}

// draw redraws the rows when one of them changed, or always when forced
// (a change of state, not of bytes).
func (r *manyRows) draw(force bool) {
	r.p.locked(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		t := r.now()
		r.startTicker(r.tick)
		cols := r.cols()
		var b strings.Builder
		for i := range r.dests {
			b.WriteString(r.row(i, cols, t) + "\n")
		}
		r.paint(b.String(), len(r.dests), force, r.p.clearLine)
	})
}

// tick redraws with the time as it is now, so that a stall shows. A
// moving row's window gets a sample of its unchanged count.
func (r *manyRows) tick() {
	r.mu.Lock()
	t := r.now()
	for i := range r.rows {
		r.rows[i].gauge.Tick(t)
	}
	r.mu.Unlock()
	r.draw(true)
}

// finish stops the ticker, draws the rows a last time and leaves them on
// screen.
func (r *manyRows) finish() {
	r.mu.Lock()
	stop, done := r.stopTicker()
	r.mu.Unlock()
	endTicker(stop, done)
	if r.mode != progressBar {
		return
	}
	r.draw(true)
	r.p.setLine(nil)
}
