package main

import (
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
)

// inRows shows, on a terminal, the transfers that a receiver of several
// senders (--max-transfers above 1) runs at once: one row each, redrawn
// under the messages, as manyRows shows a send's receivers. A row
// appears when its sender's offer is accepted, names its sender and the
// transfer's number (the "transfer" of the --json events), and is a
// progressbar bar (barline.go) once bytes move; when the transfer ends
// it settles: its last state is printed once, as a message ("done,
// checked: ..." or "failed: ..."), and it leaves the rows.
//
// The rows are hidden while the person is talked to (pause, resume): a
// question is written without a newline, and a redraw would wipe it.
// Elsewhere (not a terminal, --quiet, --json) there are no rows: a nil
// *inRows does nothing, and the output stays line-based.
//
// Its state is guarded by the printer's lock, which every writer of
// stderr holds; the ticker redraws every tickEvery so that a stall shows.
type inRows struct {
	rowScreen
	rows   []*inRow
	paused int // turns talking to the person
}

// inRow is one incoming transfer's row.
type inRow struct {
	id     int64
	label  string // its sender, made safe
	state  string // what it shows when no bytes move
	ending bool   // the person cancelled it: it shows state until it ends
	gauge  present.Gauge
	bar    *barLine
}

func newInRows(p *printer, now func() time.Time) *inRows {
	return &inRows{rowScreen: newRowScreen(p, now)}
}

// row is transfer id's row, or nil; p's lock is held.
func (r *inRows) row(id int64) *inRow {
	for _, w := range r.rows {
		if w.id == id {
			return w
		}
	}
	return nil
}

// accepted adds transfer id's row: its offer from label, of total bytes,
// was accepted.
func (r *inRows) accepted(id int64, label string, total int64) {
	if r == nil {
		return
	}
	r.p.locked(func() {
		if r.row(id) == nil {
			r.rows = append(r.rows, &inRow{id: id, label: label, state: "accepted, " + humanBytes(total) + " to come"})
		}
		r.draw(true)
	})
}

// progress notes transfer id's progress e.
func (r *inRows) progress(id int64, e event.Progress) {
	if r == nil {
		return
	}
	r.p.locked(func() {
		w := r.row(id)
		if w == nil || e.Total <= 0 {
			return
		}
		if w.bar == nil || w.bar.total != e.Total {
			w.bar = newBarLine(e.Total, r.throttle)
		}
		w.gauge.Progress(r.now(), e)
		r.draw(false)
	})
}

// offered: a row appears when the offer is accepted.
func (r *inRows) offered(string) {}

// ended settles transfer id's row: its last state (final) is printed
// once, and it leaves the rows. A transfer without a row (declined, or
// cut before its offer was answered) prints nothing here.
func (r *inRows) ended(id int64, _ bool, final string) {
	if r == nil {
		return
	}
	var label string
	r.p.locked(func() {
		for i, w := range r.rows {
			if w.id == id {
				label = w.label
				r.rows = append(r.rows[:i], r.rows[i+1:]...)
				break
			}
		}
	})
	if label == "" {
		return
	}
	r.p.infof("[%d] %s: %s", id, label, final)
	r.p.locked(func() { r.draw(true) })
}

// cancelling shows, until it ends, that transfer id is being cancelled.
func (r *inRows) cancelling(id int64) {
	if r == nil {
		return
	}
	r.p.locked(func() {
		if w := r.row(id); w != nil {
			w.ending, w.state = true, "cancelling…"
			r.draw(true)
		}
	})
}

// typed notes a line the person typed under the rows (its echo moved
// the cursor down one line): the next redraw wipes it with them.
func (r *inRows) typed() {
	if r == nil {
		return
	}
	r.p.locked(func() {
		if r.drawn > 0 {
			r.drawn++
		}
	})
}

// pause hides the rows while the person is talked to; resume shows them
// again. Turns may nest.
func (r *inRows) pause() {
	if r == nil {
		return
	}
	r.p.locked(func() { r.paused++; r.Clear() })
}

func (r *inRows) resume() {
	if r == nil {
		return
	}
	r.p.locked(func() { r.paused--; r.draw(true) })
}

// render renders row w in at most cols-1 cells.
func (r *inRows) render(w *inRow, cols int, t time.Time) string {
	bar := w.bar
	if !w.gauge.Moving || w.ending {
		bar = nil
	}
	return renderRow(w.id, w.label, w.state, bar, &w.gauge, t, cols)
}

// draw redraws the rows (p's lock is held), unless the person is being
// talked to. A draw that is not forced is one of bytes moving.
func (r *inRows) draw(force bool) {
	if r.paused > 0 {
		return
	}
	r.startTicker(r.tick)
	cols := r.cols()
	t := r.now()
	var b strings.Builder
	for _, w := range r.rows {
		b.WriteString(r.render(w, cols, t) + "\n")
	}
	r.paint(b.String(), len(r.rows), force, func() { r.Clear() })
}

// tick redraws with the time as it is now, so that a stall shows.
func (r *inRows) tick() {
	r.p.locked(func() {
		t := r.now()
		for _, w := range r.rows {
			w.gauge.Tick(t)
		}
		r.draw(true)
	})
}

// finish stops the ticker and removes the rows (every transfer has
// settled by now).
func (r *inRows) finish() {
	if r == nil {
		return
	}
	var stop, done chan struct{}
	r.p.locked(func() {
		stop, done = r.stopTicker()
		r.Clear()
		r.p.line = nil
	})
	endTicker(stop, done)
}
