package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/schollz/progressbar/v3"
)

// renderOnce renders st on a new bar (never throttled) at cols.
func renderOnce(st barState, cols int) string {
	return newBarLine(max(st.total, 1), 0).render(prefix, st, cols)
}

// TestRenderBarFits: whatever the width, the line stays off the last
// column (where it would wrap and leave a line at each redraw), and the
// label gives way before anything else. One bar is redrawn at every width
// from 1 to 200 columns and back, as a window being resized.
func TestRenderBarFits(t *testing.T) {
	labels := []string{
		"",
		"a.txt",
		"big-holiday-photos-from-the-summer-of-2026.iso",
		"夏の休暇の写真をまとめたアーカイブファイル.zip",                         // two cells a character
		"e\u0301te\u0301-cafe\u0301-re\u0301sume\u0301.pdf", // combining marks: no cell
	}
	states := []barState{
		{done: 412 * mib, total: 3 << 30, rate: 110 * mib, eta: "eta 5s"},
		{done: 412 * mib, total: 3 << 30, stalled: true, eta: "stalled"},
		{done: 1 << 40, total: 1 << 40, final: true},
	}
	for _, label := range labels {
		for _, st := range states {
			st.label = label
			b := newBarLine(st.total, 0)
			for i := 1; i <= 400; i++ {
				cols := min(i, 401-i)
				line := b.render(prefix, st, cols)
				if w := cellWidth(line); w > max(cols-1, 0) {
					t.Fatalf("%d columns, label %q: %d cells: %q", cols, label, w, line)
				}
				if cols >= 20 && !regexp.MustCompile(`^ferry: .*\d+%`).MatchString(line) {
					t.Errorf("%d columns: lost the percentage: %q", cols, line)
				}
				if cols >= 20 {
					checkProgressbar(t, line)
				}
			}
		}
	}
}

func TestRenderBarGivesWayInOrder(t *testing.T) {
	st := barState{label: "big-holiday-photos-from-the-summer-of-2026.iso", done: 412 * mib, total: 3 << 30, rate: 110 * mib, eta: "eta 21s"}
	wide := renderOnce(st, 120)
	want := "ferry: big-holiday-pho…mmer-of-2026.iso  13% [███                     ]  412 MiB/3.0 GiB 110 MiB/s eta 21s"
	if wide != want {
		t.Errorf("120 columns:\n got %q\nwant %q", wide, want)
	}
	// At 60 columns the label is cut to its least, the bar narrowed, the
	// rate left out; the bytes and the time left stay.
	narrow := renderOnce(st, 60)
	for _, part := range []string{"…", "13%", "[", "412 MiB/3.0 GiB", "eta 21s"} {
		if !strings.Contains(narrow, part) {
			t.Errorf("60 columns lacks %q: %q", part, narrow)
		}
	}
	if strings.Contains(narrow, "MiB/s") {
		t.Errorf("60 columns kept the rate over the label and bar: %q", narrow)
	}
	if got := cutMiddle("holiday-photos-2026.jpg", 12); got != "holid…26.jpg" {
		t.Errorf("cutMiddle: %q", got)
	}
}

// progressbarLine finds a bar's rendering at the end of a drawn line
// ("…  45% [████      ]  412 MiB/1.0 GiB eta 5s"): its percentage, its
// bar and its description.
var progressbarLine = regexp.MustCompile(`(\d{1,3})% \[([█ ]*)\](?:  (.+))?$`)

// checkProgressbar fails unless line ends with what a progressbar bar
// renders (its own code, configured here apart from barline.go) for the
// percentage, bar width and description the line shows.
func checkProgressbar(t *testing.T, line string) {
	t.Helper()
	if err := notProgressbar(line); err != nil {
		t.Error(err)
	}
}

func notProgressbar(line string) error {
	m := progressbarLine.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("no progressbar rendering in %q", line)
	}
	pct, _ := strconv.Atoi(m[1])
	// A count that progressbar's float division turns into pct exactly
	// (29 of 100 would be 28.999…%).
	const length = 1_000_000
	n := int64(pct) * length / 100
	if pct < 100 {
		n++
	}
	var out bytes.Buffer
	pb := progressbar.NewOptions64(length,
		progressbar.OptionSetWriter(&out),
		progressbar.OptionSetWidth(utf8.RuneCountInString(m[2])),
		progressbar.OptionSetDescription(m[3]),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetTheme(progressbar.Theme{Saucer: "█", SaucerPadding: " ", BarStart: "[", BarEnd: "]"}))
	pb.Set64(n)
	pb.Describe(m[3])
	want := strings.TrimRight(strings.TrimPrefix(pb.String(), "\r"), " ")
	if !strings.HasSuffix(line, want) {
		return fmt.Errorf("not progressbar's rendering:\n line %q\n want it to end with %q", line, want)
	}
	return nil
}

// TestNotProgressbar: the check above tells a progressbar rendering from
// the bars Ferry drew by hand before (lines from the captures in
// benches/results/2026-12-04-bars-before.txt).
func TestNotProgressbar(t *testing.T) {
	for _, line := range []string{
		"ferry: big-hol…2026.iso  21% [█     ] 8.7 MiB/40 MiB eta 6s",
		"ferry: [1] livin…TXST)  21% [█     ] 8.7 MiB/40 MiB eta 11s",
		"ferry: big-holiday-pho…mmer-of-2026.iso  23% [█████                   ] 9.2 MiB/40 MiB 5.1 MiB/s eta 6s",
		"ferry: big.iso  45% [█████     ]  412 MiB/1.0 GiB", // a hand-drawn bar with progressbar's spacing, but its fill is one cell short
	} {
		if notProgressbar(line) == nil {
			t.Errorf("taken for progressbar's: %q", line)
		}
	}
	for _, line := range []string{
		"ferry: big.iso  45% [████      ]  412 MiB/1.0 GiB",
		"ferry: 2 files (40 MiB) 100% [████████████████████████]",
	} {
		if err := notProgressbar(line); err != nil {
			t.Error(err)
		}
	}
}

// TestBarLineThrottled: within the throttle progressbar renders nothing
// and the line keeps its last rendering, fitted again around the label
// (which gives way, never the line's end); a new width or the last state
// renders at once.
func TestBarLineThrottled(t *testing.T) {
	b := newBarLine(3<<30, time.Hour)
	st := barState{label: "a.txt", done: 412 * mib, total: 3 << 30, rate: 110 * mib, eta: "eta 21s"}
	first := b.render(prefix, st, 80)
	if !strings.HasPrefix(first, "ferry: a.txt  13% [") || !strings.HasSuffix(first, "  412 MiB/3.0 GiB 110 MiB/s eta 21s") {
		t.Fatalf("first render %q", first)
	}
	st.label, st.done, st.eta = "big-holiday-photos-from-the-summer-of-2026.iso", 2<<30, "eta 9s"
	second := b.render(prefix, st, 80)
	if w := cellWidth(second); w > 79 {
		t.Errorf("%d cells on 80 columns: %q", w, second)
	}
	if !strings.Contains(second, "…") || !strings.HasSuffix(second, "  412 MiB/3.0 GiB 110 MiB/s eta 21s") {
		t.Errorf("throttled: want the last rendering after a cut label, got %q", second)
	}
	narrow := b.render(prefix, st, 60)
	if w := cellWidth(narrow); w > 59 || !strings.Contains(narrow, " 66% [") || !strings.HasSuffix(narrow, "eta 9s") {
		t.Errorf("a new width renders at once: %q", narrow)
	}
	st.final, st.label, st.done = true, "2 files (3.0 GiB)", st.total
	if last := b.render(prefix, st, 60); !strings.HasPrefix(last, "ferry: 2 files (3.0 GiB) 100% [") || !strings.HasSuffix(last, "█]") {
		t.Errorf("the last state renders at once: %q", last)
	}
}

// TestLastRenderingGuard: what progressbar writes to a bar's buffer
// holds the blanking before each render and, when a completion callback
// prints one (DefaultBytes does), a newline after the last; the line
// taken is the last rendering all the same.
func TestLastRenderingGuard(t *testing.T) {
	var out bytes.Buffer
	pb := progressbar.NewOptions64(10,
		progressbar.OptionSetWriter(&out),
		progressbar.OptionSetWidth(4),
		progressbar.OptionSetTheme(barTheme),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionOnCompletion(func() { out.WriteString("\n") }))
	pb.Set64(5)
	pb.Set64(10)
	got, ok := lastRendering(out.Bytes())
	if !ok || got != " 100% [████]" {
		t.Errorf("last rendering of %q: %q, %v", out.String(), got, ok)
	}
	if !strings.HasSuffix(out.String(), "\n") || !strings.Contains(out.String(), "\r ") {
		t.Errorf("progressbar no longer writes what the guard is for: %q", out.String())
	}
	if _, ok := lastRendering([]byte("\r    \r")); ok {
		t.Error("a blanking alone is not a rendering")
	}
}

// barTest is a bar on a buffer, with a fake clock, a fixed width and no
// ticker: the test ticks.
func barTest(cols int) (*progress, *bytes.Buffer, *fakeClock) {
	var stderr bytes.Buffer
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	pr := newProgress(&printer{stderr: &stderr}, progressBar, clock.now)
	pr.cols = func() int { return cols }
	pr.tickEvery, pr.throttle = 0, 0
	return pr, &stderr, clock
}

// lastDraw is the last redraw in a terminal stream.
func lastDraw(out string) string {
	out = strings.TrimRight(out, "\n ")
	return strings.TrimRight(out[strings.LastIndexAny(out, "\r\n")+1:], " ")
}

// TestBarStallAndETA: the time left comes from the last seconds only,
// gives way to "stalled" once no byte moved for two seconds (the ticker
// redraws though no event comes), recovers after, and is never an absurd
// figure.
func TestBarStallAndETA(t *testing.T) {
	pr, out, clock := barTest(120)
	ev := event.Progress{Total: 1000 * mib, Current: "big.iso"}
	if pr.update(ev); !strings.Contains(lastDraw(out.String()), "eta --") {
		t.Errorf("rate not known yet, but: %q", lastDraw(out.String()))
	}
	// 10 MiB/s for 4 s.
	for i := 0; i < 16; i++ {
		clock.advance(250 * time.Millisecond)
		ev.Done += 10 * mib / 4
		pr.update(ev)
	}
	if got := lastDraw(out.String()); !strings.Contains(got, "10 MiB/s eta 1m36s") {
		t.Errorf("steady: %q", got)
	}
	// A stall: no event for 10 s, only ticks.
	for i := 0; i < 20; i++ {
		clock.advance(500 * time.Millisecond)
		pr.tick()
	}
	if got := lastDraw(out.String()); !strings.HasSuffix(got, "1000 MiB stalled") {
		t.Errorf("stalled: %q", got)
	}
	// Bytes move again: the window forgets the stall within seconds.
	for i := 0; i < 24; i++ {
		clock.advance(250 * time.Millisecond)
		ev.Done += 10 * mib / 4
		pr.update(ev)
	}
	if got := lastDraw(out.String()); !strings.Contains(got, "10 MiB/s eta 1m30s") {
		t.Errorf("after the stall: %q", got)
	}
	// A crawl: a byte a second with a TiB left is no time to show.
	ev = event.Progress{Total: 1 << 40, Done: 0, Current: "huge"}
	pr.finish(false)
	for i := 0; i < 8; i++ {
		clock.advance(500 * time.Millisecond)
		ev.Done++
		pr.update(ev)
	}
	if got := lastDraw(out.String()); !strings.Contains(got, "eta >99h") {
		t.Errorf("crawl: %q", got)
	}
	pr.finish(false)
	if m := regexp.MustCompile(`eta \d{3,}h`).FindString(out.String()); m != "" {
		t.Errorf("an absurd time left was drawn: %q", m)
	}
}

// TestBarFinalSummary: at 100% the bar names the transfer, not its last
// file; a failed transfer keeps the bar as it stood.
func TestBarFinalSummary(t *testing.T) {
	pr, out, clock := barTest(80)
	pr.setSummary("12 files (1.2 GiB)")
	pr.update(event.Progress{Done: 600 * mib, Total: 1229 * mib, Current: "photos/last.jpg"})
	clock.advance(time.Second)
	pr.finish(true)
	got := lastDraw(out.String())
	if !strings.HasPrefix(got, "ferry: 12 files (1.2 GiB) 100% [") || !strings.HasSuffix(got, "█]") || strings.Contains(got, "last.jpg") || !strings.HasSuffix(out.String(), "\n") {
		t.Errorf("final bar %q", got)
	}

	pr, out, _ = barTest(80)
	pr.setSummary("1 file (100 MiB)")
	pr.update(event.Progress{Done: 40 * mib, Total: 100 * mib, Current: "big.iso"})
	pr.finish(false)
	if got := lastDraw(out.String()); !strings.Contains(got, "big.iso") || !strings.Contains(got, "40%") {
		t.Errorf("failed bar %q", got)
	}
}

// TestBarClearedForMessages: a message printed while the bar is up takes
// its line whole, and the bar comes back under it.
func TestBarClearedForMessages(t *testing.T) {
	pr, out, _ := barTest(80)
	pr.update(event.Progress{Done: 10 * mib, Total: 100 * mib, Current: "big.iso"})
	drawn := cellWidth(lastDraw(out.String()))
	pr.p.infof("a message")
	pr.update(event.Progress{Done: 20 * mib, Total: 100 * mib, Current: "big.iso"})
	want := fmt.Sprintf("\r%s\rferry: a message\n\r", strings.Repeat(" ", drawn))
	if !strings.Contains(out.String(), want) {
		t.Errorf("message not written over a cleared line: %q", out.String())
	}
}

// The time left reads in whole seconds: under one, "<1s", never "864ms".
func TestETAText(t *testing.T) {
	for _, c := range []struct {
		left  float64
		known bool
		want  string
	}{{0, false, "eta --"}, {0.864, true, "eta <1s"}, {1, true, "eta 1s"}, {96, true, "eta 1m36s"}, {1e12, true, "eta >99h"}} {
		if got := etaText(c.left, c.known); got != c.want {
			t.Errorf("etaText(%v, %v) = %q, want %q", c.left, c.known, got, c.want)
		}
	}
}
