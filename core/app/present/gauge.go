package present

import (
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// Gauge follows one transfer's bytes for a front end that redraws
// between Progress events (a bar, a row of several): the last event,
// whether bytes are moving, and a Window over the counts seen at each
// event and at each redraw, so that a redraw that finds nothing new
// shows a stall.
//
// The zero Gauge is ready to use; it belongs to one goroutine, or to
// whoever holds the lock its front end keeps it under.
type Gauge struct {
	Last   event.Progress // the last Progress event
	Moving bool           // bytes are moving: Last has a total, and the transfer has not paused or ended
	win    Window
}

// Progress notes e at t. A transfer with nothing to move (Total 0) is
// not moving: there is nothing to gauge.
func (g *Gauge) Progress(t time.Time, e event.Progress) {
	g.Last, g.Moving = e, e.Total > 0
	g.win.Add(t, e.Done)
}

// Tick notes, for a redraw at t, that no Progress event came since the
// last: while bytes are moving, the count stands where it was.
func (g *Gauge) Tick(t time.Time) {
	if g.Moving {
		g.win.Add(t, g.Last.Done)
	}
}

// Estimate reads the rate, the time left and a stall at t.
func (g *Gauge) Estimate(t time.Time) Estimate {
	return g.win.Estimate(t, g.Last.Done, g.Last.Total)
}
