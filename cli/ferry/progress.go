package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
	"golang.org/x/term"
)

// plainEvery is how often progress is printed when stderr is not a
// terminal.
const plainEvery = 2 * time.Second

// tickEvery is how often the bar is redrawn when no Progress event came:
// the engine reports nothing while a transfer stalls, and the bar must
// then say so rather than keep showing a time left that no longer holds.
// Each redraw also asks the terminal for its width again, so a resized
// window is followed within a tick.
const tickEvery = 500 * time.Millisecond

type progressMode int

const (
	progressOff   progressMode = iota // --quiet, --json
	progressPlain                     // a line every plainEvery
	progressBar                       // a redrawn bar on a terminal
)

// progress shows Progress events to a person: on a terminal as one
// redrawn line, a progressbar bar (barline.go), elsewhere as a plain line
// every plainEvery. update is called from the engine's event goroutine;
// the bar's own ticker redraws between events. The bar's state is
// guarded by the printer's lock, which every writer of stderr holds.
type progress struct {
	p         *printer
	mode      progressMode
	now       func() time.Time // injected so tests need no sleeps
	cols      func() int       // the terminal's width, asked at every redraw
	tickEvery time.Duration    // 0: no ticker (tests call tick themselves)
	throttle  time.Duration    // the bar's least time between renders

	lastPrint time.Time // plain mode

	// Bar mode, under p's lock.
	drawing   bool
	bar       *barLine
	gauge     present.Gauge // the last event, and the rate over the recent ones
	summary   string        // what the transfer moves, for its last state
	shown     string        // the line on screen
	lastWidth int           // its cells, for Clear; 0 once cleared
	stopTick  chan struct{}
	tickDone  chan struct{}
}

func newProgress(p *printer, mode progressMode, now func() time.Time) *progress {
	return &progress{p: p, mode: mode, now: now, cols: terminalCols(p.stderr), tickEvery: tickEvery, throttle: barThrottle}
}

// terminalCols returns a function that reports the width of the terminal
// behind w, or 80 when it cannot tell.
func terminalCols(w io.Writer) func() int {
	f, ok := w.(*os.File)
	return func() int {
		if ok {
			if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
				return c
			}
		}
		return 80
	}
}

// setSummary names what the transfer moves ("12 files (1.2 GiB)"), for
// the bar's last state: at 100% it names the whole transfer, not the
// last file.
func (pr *progress) setSummary(s string) {
	pr.p.locked(func() { pr.summary = s })
}

func (pr *progress) update(ev event.Progress) {
	switch pr.mode {
	case progressPlain:
		t := pr.now()
		if !pr.lastPrint.IsZero() && t.Sub(pr.lastPrint) < plainEvery {
			return
		}
		pr.lastPrint = t
		pr.p.progressLine(plainProgress(ev))
	case progressBar:
		if ev.Total <= 0 {
			return
		}
		pr.p.locked(func() {
			if !pr.drawing {
				pr.drawing = true
				pr.p.line = pr
				pr.startTicker()
			}
			if pr.bar == nil || pr.bar.total != ev.Total {
				pr.bar = newBarLine(ev.Total, pr.throttle)
			}
			t := pr.now()
			pr.gauge.Progress(t, ev)
			pr.draw(t, false)
		})
	}
}

// tick redraws the bar with the time as it is now: a stall shows.
func (pr *progress) tick() {
	pr.p.locked(func() {
		if !pr.drawing {
			return
		}
		t := pr.now()
		pr.gauge.Tick(t)
		pr.draw(t, false)
	})
}

func (pr *progress) startTicker() {
	if pr.tickEvery > 0 {
		pr.stopTick, pr.tickDone = everyTick(pr.tickEvery, pr.tick)
	}
}

// finish ends the bar: on success at 100%, labelled with the summary; on
// failure as it stood. The plain mode needs no ending: the command's
// summary line follows.
func (pr *progress) finish(ok bool) {
	var stop, done chan struct{}
	pr.p.locked(func() {
		stop, done = pr.stopTick, pr.tickDone
		pr.stopTick, pr.tickDone = nil, nil
	})
	endTicker(stop, done)
	pr.p.locked(func() {
		if pr.drawing {
			if ok {
				pr.gauge.Last.Done = pr.gauge.Last.Total
			}
			pr.draw(pr.now(), ok)
			io.WriteString(pr.p.stderr, "\n")
		}
		pr.p.line = nil
		pr.drawing, pr.bar, pr.shown, pr.lastWidth, pr.summary = false, nil, "", 0, ""
		pr.gauge = present.Gauge{}
	})
}

// oneRow is one sender's transfer shown by its bar (incoming.go's
// transferRows): named by the file moving, and at its end by what the
// transfer moved, left on screen.
type oneRow struct{ pr *progress }

func (o oneRow) offered(what string)                { o.pr.setSummary(what) }
func (o oneRow) accepted(int64, string, int64)      {}
func (o oneRow) progress(_ int64, e event.Progress) { o.pr.update(e) }
func (o oneRow) ended(_ int64, ok bool, _ string)   { o.pr.finish(ok) }
func (o oneRow) cancelling(int64)                   {}
func (o oneRow) typed()                             {}
func (o oneRow) pause()                             {}
func (o oneRow) resume()                            {}
func (o oneRow) finish()                            {}

// draw writes the bar over the line it is on when it changed (a render
// within the bar's throttle changes nothing); the printer's lock is held.
func (pr *progress) draw(t time.Time, final bool) {
	ev := pr.gauge.Last
	st := barState{done: ev.Done, total: ev.Total, final: final}
	switch {
	case final:
		st.label = pr.summary
		if st.label == "" {
			st.label = "done"
		}
	case ev.Current != "":
		st.label = safe(path.Base(ev.Current))
	}
	if !final {
		st.estimate(pr.gauge.Estimate(t))
	}
	cols := pr.cols()
	line := pr.bar.render(prefix, st, cols)
	if line == pr.shown && pr.lastWidth > 0 && !final {
		return
	}
	w := cellWidth(line)
	// Blank what is left of a longer line drawn before, without
	// reaching the last column.
	pad := min(pr.lastWidth, cols-1) - w
	io.WriteString(pr.p.stderr, "\r"+line+strings.Repeat(" ", max(pad, 0)))
	pr.shown, pr.lastWidth = line, w
}

// Clear blanks the bar's line, so that a message can take it; the next
// redraw draws the bar below that message. The printer calls it with
// its lock held.
func (pr *progress) Clear() error {
	_, err := io.WriteString(pr.p.stderr, "\r"+strings.Repeat(" ", pr.lastWidth)+"\r")
	pr.lastWidth = 0
	return err
}

// plainProgress renders one plain line (without the "ferry: " prefix):
// "412 MiB / 1.0 GiB (40%) 110 MiB/s eta 5s  current: big.iso".
func plainProgress(ev event.Progress) string {
	pct := 0
	switch {
	case ev.Total > 0:
		pct = int(100 * ev.Done / ev.Total)
	case ev.Done == ev.Total:
		pct = 100 // nothing to move: an empty file, say
	}
	s := fmt.Sprintf("%s / %s (%d%%)", humanBytes(ev.Done), humanBytes(ev.Total), pct)
	if ev.Rate > 0 { // 0 while the rate is not known yet
		s += " " + humanRate(ev.Rate)
	}
	if eta := time.Duration(ev.ETA * float64(time.Second)); eta >= time.Second && eta <= maxETA {
		s += " eta " + humanDuration(eta)
	}
	if ev.Current != "" {
		s += "  current: " + safe(ev.Current)
	}
	return s
}
