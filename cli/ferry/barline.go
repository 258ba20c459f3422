package main

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/ferry-project/ferry/core/app/present"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/text/width"
)

// The progress line, fitted to the terminal:
//
//	ferry: big.iso   45% [█████████           ]  412 MiB/1.0 GiB 110 MiB/s eta 5s
//	ferry: 12 files (1.2 GiB) 100% [████████████████████████]
//
// Everything from the percentage on is drawn by a
// github.com/schollz/progressbar/v3 bar: the percentage, the bar, and, as
// the bar's description at the line's end, Ferry's own figures (bytes
// moved, rate, time left). Ferry puts "ferry: " and the label in front,
// and chooses at every redraw how wide the bar is and what the
// description holds, so that the line fits the terminal as it is then.
// Several receivers get one bar each (manyRows), and so do several
// senders (inRows).
//
// The line never reaches the terminal's last column: a line that fills
// it wraps, and each redraw would then leave a line behind. When the
// whole line does not fit, parts give way in this order: the label is cut
// (in the middle, keeping the start and the extension) down to midLabel,
// the bar narrows down to minBar, the label is cut down to minLabel, then
// the rate goes, the byte counts, the bar narrows to nothing ("[]"), the
// ETA goes, and last the label; the percentage stays, and below that the
// line is cut. The last state, labelled with the transfer's summary,
// narrows the bar before it cuts the summary. Widths are counted in
// terminal cells: East Asian wide characters take two, combining marks
// none.
//
// Where progressbar (v3.19.1) falls short, Ferry works beside it:
//
//   - Width. OptionFullWidth sizes the bar from the writer's terminal (80
//     columns when the writer is not an *os.File, as here) and never
//     shortens the description; without it progressbar only narrows the
//     bar, and only when it writes to the terminal itself. So Ferry sets
//     the bar's width with OptionSetWidth before each render and cuts the
//     label itself.
//   - Figures. progressbar's own count and rate (OptionShowCount,
//     OptionShowBytes) come as one group, "(412 MiB/1.0 GiB, 110 MiB/s)",
//     that cannot be left out once shown (no option turns OptionShowCount
//     off), too wide for a 60-column line with a name and a time left;
//     and its rate is its own average over the wall clock, which would
//     not agree with the time left. So the bytes (binary units, as
//     OptionUseIECUnits would give), the rate and the time left, measured
//     over the last seconds (progress.go), are Ferry's, in the
//     description, and its prediction is off (OptionSetPredictTime(false)):
//     its averaging once showed "57654h".
//   - Throttle. OptionThrottle keeps a render from following the last by
//     less than barThrottle; a throttled call renders nothing and the
//     line keeps the last rendering, which may have been fitted to
//     another label. fitLine fits the line again around it, the label
//     giving way first. A redraw that must show the state as it is (the
//     last one, the first at a new terminal width) turns the throttle off
//     for that call.
//   - Output. A bar writes to its own buffer, never to the terminal:
//     progressbar writes "\r", spaces and "\r" before each render to blank
//     its line, and, with OptionOnCompletion, whatever that prints.
//     lastRendering takes the last non-blank line from the buffer, and
//     Ferry writes it, so that bars stack as rows and messages go between
//     redraws.
//   - Goroutines. A bar of unknown length (-1) starts a spinner goroutine
//     that writes on its own; Ferry never makes one (a transfer's size is
//     known before its first byte), so a bar is only touched under the
//     printer's lock, which is also what makes changing its options
//     between renders (OptionSetWidth, OptionSetDescription,
//     OptionThrottle applied to the live bar) safe.

const (
	maxLabel = 32 // cells of the label when there is room
	midLabel = 16 // the label is cut to this before the bar narrows
	minLabel = 10 // and to this after
	maxBar   = 24 // cells inside the brackets
	minBar   = 6

	// barThrottle is the least time between two renders of a bar
	// (OptionThrottle): progress events come every 250 ms per receiver,
	// the stall ticker every tickEvery.
	barThrottle = 100 * time.Millisecond

	// pctCells is the width of progressbar's percentage ("%4d%%"), which
	// also keeps a space between the label and the digits.
	pctCells = 5
)

// barTheme is the bar's look: "[█████     ]".
var barTheme = progressbar.Theme{Saucer: "█", SaucerPadding: " ", BarStart: "[", BarEnd: "]"}

// barState is what one redraw shows.
type barState struct {
	label   string  // the current file (already made safe), or the summary at the end
	done    int64   // bytes moved
	total   int64   // bytes to move
	rate    float64 // bytes per second; 0 when unknown
	eta     string  // "eta 5s", "eta --", "stalled"; "" to leave out
	stalled bool    // no byte for a while: no rate is shown
	final   bool    // the transfer is over: no rate, no ETA
}

// renderRow renders row [n] of several transfers (inRows, manyRows) in
// at most cols-1 cells: while its bytes move, its bar with g's counts,
// its rate and time left at t, or "stalled" (none once every byte has
// moved); otherwise (bar nil) its label and state.
func renderRow(n int64, label, state string, bar *barLine, g *present.Gauge, t time.Time, cols int) string {
	head := fmt.Sprintf("%s[%d] ", prefix, n)
	if bar == nil {
		row := head + label + ": " + state
		if cellWidth(row) > cols-1 {
			row = cutCells(row, max(cols-2, 0)) + "…"
		}
		return cutCells(row, max(cols-1, 0))
	}
	e := g.Last
	st := barState{label: label, done: e.Done, total: e.Total}
	st.estimate(g.Estimate(t))
	if e.Done >= e.Total {
		st.rate, st.eta = 0, ""
	}
	return bar.render(head, st, cols)
}

// estimate sets the rate and the time left that st shows from e:
// "stalled" once no byte moved for a while (in the ETA's place, which
// outlasts the rate on a narrow line), "eta --" while the rate is not
// known yet.
func (st *barState) estimate(e present.Estimate) {
	st.stalled = e.Stalled
	switch {
	case e.Stalled:
		st.eta = "stalled"
	case e.Rate > 0:
		st.rate = e.Rate
		st.eta = etaText(e.Left, true)
	default:
		st.eta = etaText(0, false)
	}
}

// barLine is one progressbar bar and what it rendered last.
type barLine struct {
	pb       *progressbar.ProgressBar
	out      bytes.Buffer // what pb writes; emptied after each render
	total    int64
	throttle time.Duration
	drawn    string // pb's last rendering, from the percentage on
	cols     int    // the terminal's width when it was rendered
}

// newBarLine returns a bar for a transfer of total bytes (more than 0):
// it renders at most once per throttle, except when forced.
func newBarLine(total int64, throttle time.Duration) *barLine {
	b := &barLine{total: total, throttle: throttle}
	b.pb = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(&b.out),
		progressbar.OptionSetTheme(barTheme),
		progressbar.OptionSetWidth(maxBar),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionSetRenderBlankState(false),
		progressbar.OptionThrottle(throttle),
	)
	return b
}

// render draws s with the bar and returns the line: head ("ferry: ", or
// "ferry: [2] " for a row), the label, and the bar's rendering, in at
// most cols-1 cells.
func (b *barLine) render(head string, s barState, cols int) string {
	avail := cols - 1
	l := newBarLayout(head, s)
	l.giveWay(avail)
	l.giveBack(avail)
	if !l.showLabel {
		l.labelW = 0
	}
	b.draw(s.done, l.barW, l.desc(), s.final || cols != b.cols)
	b.cols = cols
	return fitLine(head, s.label, l.labelW, b.drawn, avail)
}

// barLayout is how one line is shared out: which parts show, and how
// wide the label and the bar are.
type barLayout struct {
	head, label                             string
	final                                   bool
	bytesText, rateText, eta                string
	labelW, barW                            int
	showBytes, showRate, showETA, showLabel bool
}

func newBarLayout(head string, s barState) barLayout {
	l := barLayout{head: head, label: s.label, final: s.final, eta: s.eta,
		bytesText: humanBytes(s.done) + "/" + humanBytes(s.total),
		labelW:    min(cellWidth(s.label), maxLabel), barW: maxBar, showBytes: true}
	if !s.final && !s.stalled && s.rate > 0 {
		l.rateText = humanRate(s.rate)
	}
	if s.final {
		// The last state names the whole transfer ("3 files and 1 folder
		// (1.2 GiB)"), which says the bytes too: it is kept whole as long
		// as a bar of the least width fits beside it.
		l.eta, l.labelW, l.showBytes = "", cellWidth(s.label), false
	}
	l.showRate, l.showETA, l.showLabel = l.rateText != "", l.eta != "", s.label != ""
	return l
}

// desc is what progressbar shows after the bar: bytes, rate and ETA.
func (l *barLayout) desc() string {
	var parts []string
	for _, p := range []struct {
		on   bool
		text string
	}{{l.showBytes, l.bytesText}, {l.showRate, l.rateText}, {l.showETA, l.eta}} {
		if p.on {
			parts = append(parts, p.text)
		}
	}
	return strings.Join(parts, " ")
}

// need is how many cells the line takes as laid out.
func (l *barLayout) need() int {
	n := cellWidth(l.head) + renderedCells(l.barW, l.desc())
	if l.showLabel {
		n += l.labelW
	}
	return n
}

// giveWay narrows or drops parts, in order, until the line fits avail
// cells (or nothing is left to give: fitLine cuts the rest).
func (l *barLayout) giveWay(avail int) {
	labelFirst := !l.final
	for over := l.need() - avail; over > 0; over = l.need() - avail {
		switch {
		case labelFirst && l.showLabel && l.labelW > midLabel:
			l.labelW = max(midLabel, l.labelW-over)
		case l.barW > minBar:
			l.barW = max(minBar, l.barW-over)
		case l.showLabel && l.labelW > minLabel:
			l.labelW = max(minLabel, l.labelW-over)
		case l.showRate:
			l.showRate = false
		case l.showBytes:
			l.showBytes = false
		case l.barW > 0:
			l.barW = max(0, l.barW-over)
		case l.showETA:
			l.showETA = false
		case l.showLabel:
			l.showLabel = false
		}
		if !l.showLabel && !l.showETA && !l.showRate && !l.showBytes && l.barW == 0 {
			return
		}
	}
}

// giveBack hands the cells a part that went freed beyond what was
// needed to the label first, then to the bar.
func (l *barLayout) giveBack(avail int) {
	spare := avail - l.need()
	if spare <= 0 {
		return
	}
	if l.showLabel {
		grow := min(spare, min(cellWidth(l.label), maxLabel)-l.labelW)
		if l.final {
			grow = min(spare, cellWidth(l.label)-l.labelW)
		}
		grow = max(grow, 0)
		l.labelW += grow
		spare -= grow
	}
	l.barW += max(0, min(spare, maxBar-l.barW))
}

// draw has progressbar render the bar at done, barW cells wide, with
// desc after it; a forced draw is not throttled.
func (b *barLine) draw(done int64, barW int, desc string, force bool) {
	if force {
		progressbar.OptionThrottle(0)(b.pb)
		defer progressbar.OptionThrottle(b.throttle)(b.pb)
	}
	progressbar.OptionSetWidth(barW)(b.pb)
	progressbar.OptionSetDescription(desc)(b.pb)
	// Set64 renders when the percentage moved, Describe otherwise (a
	// render within the throttle of the last is skipped). Neither fails
	// on a byte count within the bar's length, and a buffer takes every
	// write.
	b.pb.Set64(min(max(done, 0), b.total))
	b.pb.Describe(desc)
	if r, ok := lastRendering(b.out.Bytes()); ok {
		b.drawn = r
	}
	b.out.Reset()
}

// renderedCells is the width of progressbar's rendering of a bar barW
// cells wide with desc after it: "%4d%% [bar]  desc" (the description
// comes after the count and rate, which are off, hence two spaces),
// trailing spaces left out.
func renderedCells(barW int, desc string) int {
	n := pctCells + 1 + barW + 2
	if desc != "" {
		n += 2 + cellWidth(desc)
	}
	return n
}

// lastRendering is the last rendering in what progressbar wrote: the last
// line that is not blank, after the "\r" that starts each render and
// before any newline (OptionOnCompletion's, say), trailing spaces left out.
func lastRendering(out []byte) (string, bool) {
	lines := strings.FieldsFunc(string(out), func(r rune) bool { return r == '\r' || r == '\n' })
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimRight(lines[i], " "); strings.TrimSpace(l) != "" {
			return l, true
		}
	}
	return "", false
}

// fitLine puts head and the label (cut to at most labelW cells) before
// the bar's rendering in at most avail cells. The rendering may be an
// older one than the widths were chosen for (a throttled render): the
// label then gives way first, and below that the line is cut.
func fitLine(head, label string, labelW int, drawn string, avail int) string {
	room := min(labelW, avail-cellWidth(head)-cellWidth(drawn))
	if room <= 0 || label == "" {
		return cutCells(head+drawn, max(avail, 0))
	}
	l := cutMiddle(label, room)
	return head + l + strings.Repeat(" ", room-cellWidth(l)) + drawn
}

// maxETA is the longest time left that is shown as a time; beyond it a
// figure means nothing (a rate that just recovered from a stall, a link
// that crawls) and reads "eta >99h".
const maxETA = 99 * time.Hour

// etaText renders the time left, in seconds: "eta 5s", "eta --" when
// unknown or stalled, "eta <1s" under a second (milliseconds would be a
// precision the estimate does not have), "eta >99h" past maxETA (a
// float, so that no figure overflows a Duration on the way).
func etaText(left float64, known bool) string {
	switch {
	case !known:
		return "eta --"
	case left > maxETA.Seconds():
		return "eta >99h"
	case left < 1:
		return "eta <1s"
	}
	return "eta " + humanDuration(time.Duration(left*float64(time.Second)))
}

// cellWidth is the number of terminal cells s takes.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

func runeCells(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// cutCells cuts s to at most n cells, at a rune boundary.
func cutCells(s string, n int) string {
	w := 0
	for i, r := range s {
		if w+runeCells(r) > n {
			return s[:i]
		}
		w += runeCells(r)
	}
	return s
}

// cutMiddle shortens s to at most n cells by putting "…" in its middle,
// keeping more of the end than of the start when the end holds an
// extension ("holiday-pho…2026.jpg" rather than losing ".jpg").
func cutMiddle(s string, n int) string {
	if cellWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return cutCells("…", n)
	}
	budget := n - 1
	headW := budget / 2
	tailW := budget - headW
	head := cutCells(s, headW)
	// The tail: the last runes that fit in tailW cells.
	rs := []rune(s)
	w, i := 0, len(rs)
	for i > 0 && w+runeCells(rs[i-1]) <= tailW {
		i--
		w += runeCells(rs[i])
	}
	return head + "…" + string(rs[i:])
}
