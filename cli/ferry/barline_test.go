package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/transfer"
)

// TestRenderBarFits: whatever the width, the line stays off the last
// column (where it would wrap and leave a line at each redraw), and the
// label gives way before anything else.
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
			for cols := 1; cols <= 200; cols++ {
				line := renderBar(st, cols)
				if w := cellWidth(line); w > max(cols-1, 0) {
					t.Fatalf("%d columns, label %q: %d cells: %q", cols, label, w, line)
				}
				if cols >= 20 && !regexp.MustCompile(`^ferry: .*\d+%`).MatchString(line) {
					t.Errorf("%d columns: lost the percentage: %q", cols, line)
				}
			}
		}
	}
}

func TestRenderBarGivesWayInOrder(t *testing.T) {
	st := barState{label: "big-holiday-photos-from-the-summer-of-2026.iso", done: 412 * mib, total: 3 << 30, rate: 110 * mib, eta: "eta 21s"}
	wide := renderBar(st, 120)
	want := "ferry: big-holiday-pho…mmer-of-2026.iso  13% [███                     ] 412 MiB/3.0 GiB 110 MiB/s eta 21s"
	if wide != want {
		t.Errorf("120 columns:\n got %q\nwant %q", wide, want)
	}
	// At 60 columns the label is cut to its least, the bar narrowed, the
	// rate left out; the bytes and the time left stay.
	narrow := renderBar(st, 60)
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

// barTest is a bar on a buffer, with a fake clock, a fixed width and no
// ticker: the test ticks.
func barTest(cols int) (*progress, *bytes.Buffer, *fakeClock) {
	var stderr bytes.Buffer
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	pr := newProgress(&printer{stderr: &stderr}, progressBar, clock.now)
	pr.cols = func() int { return cols }
	pr.tickEvery = 0
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
	ev := transfer.Progress{Total: 1000 * mib, Current: "big.iso"}
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
	ev = transfer.Progress{Total: 1 << 40, Done: 0, Current: "huge"}
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
	pr.update(transfer.Progress{Done: 600 * mib, Total: 1229 * mib, Current: "photos/last.jpg"})
	clock.advance(time.Second)
	pr.finish(true)
	got := lastDraw(out.String())
	if !strings.HasPrefix(got, "ferry: 12 files (1.2 GiB) 100% [") || !strings.HasSuffix(got, "█]") || strings.Contains(got, "last.jpg") || !strings.HasSuffix(out.String(), "\n") {
		t.Errorf("final bar %q", got)
	}

	pr, out, _ = barTest(80)
	pr.setSummary("1 file (100 MiB)")
	pr.update(transfer.Progress{Done: 40 * mib, Total: 100 * mib, Current: "big.iso"})
	pr.finish(false)
	if got := lastDraw(out.String()); !strings.Contains(got, "big.iso") || !strings.Contains(got, "40%") {
		t.Errorf("failed bar %q", got)
	}
}

// TestBarClearedForMessages: a message printed while the bar is up takes
// its line whole, and the bar comes back under it.
func TestBarClearedForMessages(t *testing.T) {
	pr, out, _ := barTest(80)
	pr.update(transfer.Progress{Done: 10 * mib, Total: 100 * mib, Current: "big.iso"})
	drawn := cellWidth(lastDraw(out.String()))
	pr.p.infof("a message")
	pr.update(transfer.Progress{Done: 20 * mib, Total: 100 * mib, Current: "big.iso"})
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
