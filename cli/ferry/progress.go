package main

import (
	"fmt"
	"path"
	"time"

	"github.com/ferry-project/ferry/core/transfer"
	"github.com/schollz/progressbar/v3"
)

// plainEvery is how often progress is printed when stderr is not a
// terminal.
const plainEvery = 2 * time.Second

type progressMode int

const (
	progressOff   progressMode = iota // --quiet, --json
	progressPlain                     // a line every plainEvery
	progressBar                       // a redrawn bar on a terminal
)

// progress shows Progress events to a person. It is called from the
// engine's event goroutine only.
type progress struct {
	p    *printer
	mode progressMode
	now  func() time.Time // injected so tests need no sleeps

	lastPrint time.Time
	bar       *progressbar.ProgressBar
	barMax    int64
	current   string
}

func newProgress(p *printer, mode progressMode, now func() time.Time) *progress {
	return &progress{p: p, mode: mode, now: now}
}

func (pr *progress) update(ev transfer.Progress) {
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
			// Describe and ChangeMax redraw too; call them only on a
			// change, so the throttle keeps its slot for the bytes.
			switch {
			case pr.bar == nil:
				pr.bar = pr.newBar(ev.Total, ev.Current)
				pr.p.line = pr.bar
			case ev.Total != pr.barMax:
				pr.bar.ChangeMax64(ev.Total)
				pr.barMax = ev.Total
			}
			if ev.Current != pr.current {
				pr.bar.Describe(barDescription(ev.Current))
			}
			pr.current = ev.Current
			pr.bar.Set64(ev.Done)
		})
	}
}

// finish ends the bar: full on success, kept as it stood on failure. The
// plain mode needs no ending: the command's summary line follows.
func (pr *progress) finish(ok bool) {
	if pr.bar == nil {
		return
	}
	pr.p.locked(func() {
		switch {
		case ok:
			pr.bar.Finish()
		case !pr.bar.IsFinished():
			pr.bar.Exit()
		}
		pr.p.line = nil
		pr.bar = nil
	})
}

func (pr *progress) newBar(total int64, current string) *progressbar.ProgressBar {
	pr.barMax, pr.current = total, current
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(pr.p.stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(pr.p.stderr) }),
		progressbar.OptionShowCount(),
		progressbar.OptionSetDescription(barDescription(current)),
	)
}

// barDescription names the file being moved, shortened to keep the bar
// on one line of a narrow terminal.
func barDescription(current string) string {
	name := path.Base(current)
	if current == "" {
		name = ""
	}
	const max = 24
	name = safeCap(name, max)
	return fmt.Sprintf("%s%-*s", prefix, max, name)
}

// plainProgress renders one plain line (without the "ferry: " prefix):
// "412 MiB / 1.0 GiB (40%) 110 MiB/s eta 5s  current: big.iso".
func plainProgress(ev transfer.Progress) string {
	pct := 0
	if ev.Total > 0 {
		pct = int(100 * ev.Done / ev.Total)
	}
	s := fmt.Sprintf("%s / %s (%d%%)", humanBytes(ev.Done), humanBytes(ev.Total), pct)
	if ev.Rate > 0 { // 0 while the rate is not known yet
		s += " " + humanRate(ev.Rate)
	}
	if ev.ETA >= time.Second {
		s += " eta " + humanDuration(ev.ETA)
	}
	if ev.Current != "" {
		s += "  current: " + safe(ev.Current)
	}
	return s
}
