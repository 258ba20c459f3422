package main

import (
	"fmt"
	"io"
	"time"
)

// rowScreen is what the rows of several transfers on a terminal
// (inRows for a receiver's senders, manyRows for a send's receivers)
// share whatever they show: the clock and the terminal's width they are
// drawn with, the ticker that redraws them so that a stall shows, and
// the rows on screen, which the printer clears (Clear) before it writes
// a message under them. Its owner guards it with the lock it draws
// under.
type rowScreen struct {
	p         *printer
	now       func() time.Time
	cols      func() int // the terminal's width, asked at every redraw
	tickEvery time.Duration
	throttle  time.Duration // each bar's least time between renders

	drawn    int    // rows on screen
	shown    string // what they show
	stopTick chan struct{}
	tickDone chan struct{}
}

func newRowScreen(p *printer, now func() time.Time) rowScreen {
	return rowScreen{p: p, now: now, cols: terminalCols(p.stderr), tickEvery: tickEvery, throttle: barThrottle}
}

// startTicker starts the redraw ticker, calling tick, unless it runs
// already or ticks are off; stopTicker stops it.
func (s *rowScreen) startTicker(tick func()) {
	if s.stopTick == nil && s.tickEvery > 0 {
		s.stopTick, s.tickDone = everyTick(s.tickEvery, tick)
	}
}

// stopTicker turns ticks off for good and returns what ends the ticker
// (nil when none ran): close stop, then wait for done, without the lock
// the ticker's redraw takes.
func (s *rowScreen) stopTicker() (stop, done chan struct{}) {
	s.tickEvery = 0
	return s.stopTick, s.tickDone
}

// paint puts rows, n lines, on screen in place of what is there, unless
// they are what is there already and the draw is not forced (a forced
// one is a change of state, not of bytes); clear wipes what is there.
func (s *rowScreen) paint(rows string, n int, force bool, clear func()) {
	if !force && s.drawn > 0 && rows == s.shown {
		return
	}
	clear()
	io.WriteString(s.p.stderr, rows)
	s.drawn, s.shown = n, rows
	s.p.line = s
}

// Clear removes the rows, for the printer before it writes a message;
// the next draw puts them back under it. Called with the printer locked.
func (s *rowScreen) Clear() error {
	s.drawn = wipeRows(s.p.stderr, s.drawn)
	return nil
}

// endTicker closes stop and waits for done (stopTicker's), if a ticker
// ran.
func endTicker(stop, done chan struct{}) {
	if stop != nil {
		close(stop)
		<-done
	}
}

// everyTick calls tick every period on a goroutine of its own until stop
// is closed; done is closed once it has returned. The one transfer's
// bar and the rows of several redraw with it.
func everyTick(period time.Duration, tick func()) (stop, done chan struct{}) {
	stop, done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				tick()
			}
		}
	}()
	return stop, done
}

// wipeRows moves the cursor up over the drawn rows and erases them down
// to the end of the screen; it returns the rows now drawn, none.
func wipeRows(w io.Writer, drawn int) int {
	if drawn > 0 {
		fmt.Fprintf(w, "\x1b[%dA\r\x1b[J", drawn)
	}
	return 0
}
