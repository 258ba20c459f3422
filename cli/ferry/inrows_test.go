package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// The rows of incoming transfers: a row appears on acceptance, becomes
// a bar, is hidden while a question is open (a redraw would wipe it) and
// comes back after, and settles to one line when its transfer ends.
func TestInRows(t *testing.T) {
	var out bytes.Buffer
	p := &printer{stdout: &bytes.Buffer{}, stderr: &out}
	clock := time.Unix(0, 0)
	r := newInRows(p, func() time.Time { clock = clock.Add(time.Second); return clock })
	r.tickEvery, r.throttle = 0, 0
	r.accepted(3, "ann", 100)
	r.accepted(4, "bob", 200)
	r.progress(3, event.Progress{Done: 50, Total: 100})
	if s := out.String(); !strings.Contains(s, "ferry: [3] ann  50% [") || !strings.HasSuffix(s, "ferry: [4] bob: accepted, 200 B to come\n") {
		t.Fatalf("rows:\n%q", s)
	}
	r.pause()
	p.ask("accept? [y/N] ")
	out.Reset()
	r.progress(4, event.Progress{Done: 20, Total: 200})
	if out.Len() != 0 {
		t.Fatalf("drawn over an open question: %q", out.String())
	}
	r.resume()
	if s := out.String(); strings.Count(s, "\n") != 2 || !strings.Contains(s, "[4] bob  10% [") {
		t.Fatalf("after the question:\n%q", s)
	}
	out.Reset()
	r.ended(3, true, "done, checked: 1 file")
	s := out.String()
	if !strings.HasPrefix(s, "\x1b[2A\r\x1b[Jferry: [3] ann: done, checked: 1 file\n") || strings.Count(s, "ann") != 1 {
		t.Fatalf("settled:\n%q", s)
	}
	r.ended(9, false, "failed: declined") // never had a row
	if strings.Contains(out.String(), "[9]") {
		t.Fatalf("a row for a transfer never accepted:\n%q", out.String())
	}
	r.finish()
	var none *inRows // not a terminal: no rows, nothing written
	none.accepted(1, "x", 1)
	none.ended(1, true, "done")
}

// A line the person typed under the rows is wiped with them at the next
// redraw, and nothing is counted when no rows are on screen; a transfer
// being cancelled shows so until it ends, whatever progress comes.
func TestInRowsTypedAndCancelling(t *testing.T) {
	var out bytes.Buffer
	p := &printer{stdout: &bytes.Buffer{}, stderr: &out}
	r := newInRows(p, time.Now)
	r.tickEvery, r.throttle = 0, 0
	r.accepted(1, "ann", 100)
	r.accepted(2, "bob", 100)
	r.typed() // "1⏎" echoed under the two rows
	out.Reset()
	r.cancelling(1)
	if s := out.String(); !strings.HasPrefix(s, "\x1b[3A\r\x1b[J") || !strings.Contains(s, "[1] ann: cancelling…\n") {
		t.Fatalf("redraw after a typed line:\n%q", s)
	}
	out.Reset()
	r.progress(1, event.Progress{Done: 60, Total: 100})
	r.tick()
	if s := out.String(); !strings.HasPrefix(s, "\x1b[2A\r\x1b[J") || !strings.Contains(s, "[1] ann: cancelling…\n") || strings.Contains(s, "60%") {
		t.Fatalf("a cancelling row redrawn with progress:\n%q", s)
	}
	r.pause() // a question: the rows are off screen
	r.typed() // its answer
	out.Reset()
	r.resume()
	if s := out.String(); strings.Contains(s, "\x1b[") {
		t.Fatalf("rows off screen, yet the answer's line was wiped:\n%q", s)
	}
	r.finish()
}
