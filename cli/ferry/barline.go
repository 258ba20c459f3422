package main

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// The progress bar's one line, fitted to the terminal:
//
//	ferry: big.iso   45% [█████████           ] 412 MiB/1.0 GiB 110 MiB/s eta 5s
//	ferry: 12 files (1.2 GiB) 100% [████████████████████████]
//
// The line never reaches the terminal's last column: a line that fills
// it wraps, and each redraw would then leave a line behind. When the
// whole line does not fit, parts give way in this order: the label is cut
// (in the middle, keeping the start and the extension) down to midLabel,
// the bar narrows down to minBar, the label is cut down to minLabel, then
// the rate goes, the byte counts, the bar, the ETA, and last the label;
// the percentage stays.
// The last state, labelled with the transfer's summary, narrows the bar
// before it cuts the summary.
// Widths are counted in terminal cells: East Asian wide characters take
// two, combining marks none.

const (
	maxLabel = 32 // cells of the label when there is room
	midLabel = 16 // the label is cut to this before the bar narrows
	minLabel = 10 // and to this after
	maxBar   = 24 // cells inside the brackets
	minBar   = 6
)

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

// renderBar renders s in at most cols-1 cells (at least a bare
// percentage, cut if even that does not fit).
func renderBar(s barState, cols int) string {
	pct := 0
	if s.total > 0 {
		pct = int(100 * s.done / s.total)
	} else if s.final {
		pct = 100
	}
	pctText := fmt.Sprintf("%3d%%", pct)
	bytesText := humanBytes(s.done) + "/" + humanBytes(s.total)
	rateText := ""
	if !s.final && !s.stalled && s.rate > 0 {
		rateText = humanRate(s.rate)
	}
	eta := s.eta
	if s.final {
		eta = ""
	}

	avail := cols - 1
	label := s.label
	labelW := min(cellWidth(label), maxLabel)
	barW := maxBar
	showBar, showBytes, showRate, showETA, showLabel := true, true, rateText != "", eta != "", label != ""
	if s.final {
		// The last state names the whole transfer ("3 files and 1 folder
		// (1.2 GiB)"), which says the bytes too: it is kept whole as long
		// as a bar of the least width fits beside it.
		labelW, showBytes = cellWidth(label), false
	}
	labelFirst := !s.final

	need := func() int {
		n := utf8.RuneCountInString(prefix) + len(pctText)
		if showLabel {
			n += labelW + 1
		}
		if showBar {
			n += barW + 3 // " [" and "]"
		}
		if showBytes {
			n += 1 + len(bytesText)
		}
		if showRate {
			n += 1 + len(rateText)
		}
		if showETA {
			n += 1 + len(eta)
		}
		return n
	}
	// Give way in order until the line fits.
	for over := need() - avail; over > 0; over = need() - avail {
		switch {
		case labelFirst && showLabel && labelW > midLabel:
			labelW = max(midLabel, labelW-over)
		case showBar && barW > minBar:
			barW = max(minBar, barW-over)
		case showLabel && labelW > minLabel:
			labelW = max(minLabel, labelW-over)
		case showRate:
			showRate = false
		case showBytes:
			showBytes = false
		case showBar:
			showBar = false
		case showETA:
			showETA = false
		case showLabel:
			showLabel = false
		default:
			return cutCells(prefix+pctText, max(avail, 0))
		}
	}

	// A part that went may have freed more than was needed: give it
	// back, to the label first, then to the bar.
	if spare := avail - need(); spare > 0 {
		if showLabel {
			grow := min(spare, min(cellWidth(label), maxLabel)-labelW)
			if s.final {
				grow = min(spare, cellWidth(label)-labelW)
			}
			grow = max(grow, 0)
			labelW += grow
			spare -= grow
		}
		if showBar {
			barW += max(0, min(spare, maxBar-barW))
		}
	}

	var b strings.Builder
	b.WriteString(prefix)
	if showLabel {
		l := cutMiddle(label, labelW)
		b.WriteString(l)
		b.WriteString(strings.Repeat(" ", labelW-cellWidth(l)+1))
	}
	b.WriteString(pctText)
	if showBar {
		fill := barW * pct / 100
		b.WriteString(" [")
		b.WriteString(strings.Repeat("█", fill))
		b.WriteString(strings.Repeat(" ", barW-fill))
		b.WriteString("]")
	}
	for _, part := range []struct {
		on   bool
		text string
	}{{showBytes, bytesText}, {showRate, rateText}, {showETA, eta}} {
		if part.on {
			b.WriteString(" ")
			b.WriteString(part.text)
		}
	}
	return b.String()
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
