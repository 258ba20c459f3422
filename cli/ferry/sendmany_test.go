package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
)

func TestParseSendMany(t *testing.T) {
	for _, tc := range []struct {
		args []string
		bad  string // part of the usage error; "" means accepted
	}{
		{[]string{"--to", "1.2.3.4:5", "--to", "1.2.3.5:5", "f"}, ""},
		{[]string{"--to", "1.2.3.4:5", "--peer", "laptop", "--code", "1", "--code", "2", "f"}, ""},
		{[]string{"--to", "1.2.3.4:5", "--code", "1", "--code", "2", "f"}, "2 codes for 1 receiver"},
		{[]string{"--to", "1.2.3.4:5", "--to", "1.2.3.5:5", "--code", "1", "--code", "2", "--code", "3", "f"}, "3 codes for 2 receivers"},
		{[]string{"--to", "1.2.3.4:5", "--to", "nope", "f"}, `bad --to address "nope"`},
		{[]string{"--to", "1.2.3.4:5", "--to", "1.2.3.5:5", "--paired", "x", "f"}, "--paired goes with one --to"},
		{[]string{"--to", "1.2.3.4:5", "--to", "1.2.3.5:5", "--trust", "f"}, "--trust goes with one receiver"},
		{[]string{"--to", "1.2.3.4:5", "--to", "1.2.3.5:5"}, "nothing to send"},
	} {
		o, err := parseSend(tc.args)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%v: error %v, want one saying %q", tc.args, err, tc.bad)
		case tc.bad == "" && len(o.targets) != 2:
			t.Errorf("%v: %d receivers", tc.args, len(o.targets))
		}
	}
	// One receiver keeps the single-receiver fields send.go reads.
	o, err := parseSend([]string{"--to", "1.2.3.4:5", "--code", "42", "f"})
	if err != nil || o.to != "1.2.3.4:5" || o.code != "42" || o.peer != "" {
		t.Errorf("one receiver: %+v, %v", o, err)
	}
}

func TestTagEvent(t *testing.T) {
	b := tag(event.Accepted{By: "peer", TotalBytes: 7}, 1, "10.0.0.2:4000")
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if m["receiver_index"] != 2.0 || m["receiver"] != "10.0.0.2:4000" || m["event"] != "accepted" || m["total_bytes"] != 7.0 {
		t.Errorf("tagged event %s", b)
	}
}

func TestManyExitIsTheWorst(t *testing.T) {
	order := []int{exitOK, exitDeclined, exitWrong, exitStopped, exitFailure, exitVerify}
	for i := 1; i < len(order); i++ {
		if severity(order[i]) <= severity(order[i-1]) {
			t.Errorf("exit %d is not worse than exit %d", order[i], order[i-1])
		}
	}
}

// Three real receivers on loopback: the first and third accept, the
// second (no --yes, no terminal) declines. Both others get every file;
// the result names which got what; the exit code is the decline's; every
// event says which receiver it is about.
func TestE2ESendToThree(t *testing.T) {
	src := writeTree(t)
	dests := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	r1, a1 := startReceiver(t, dests[0], "111111", "--yes")
	r2, a2 := startReceiver(t, dests[1], "222222")
	r3, a3 := startReceiver(t, dests[2], "333333", "--yes")
	stdout, stderr, code := sendRun(t, "--json", "--to", a1, "--to", a2, "--to", a3,
		"--code", "111111", "--code", "222222", "--code", "333333", src)
	if code != exitDeclined {
		t.Fatalf("send exit %d, want %d (declined, the worst); stderr:\n%s", code, exitDeclined, stderr)
	}
	for i, r := range []interface{ Exit(time.Duration) int }{r1, r2, r3} {
		want := exitOK
		if i == 1 {
			want = exitDeclined
		}
		if c := r.Exit(20 * time.Second); c != want {
			t.Errorf("receiver %d exit %d, want %d", i+1, c, want)
		}
	}
	for _, i := range []int{0, 2} {
		want, _ := os.ReadFile(filepath.Join(src, "photos", "2026", "beach.raw"))
		got, err := os.ReadFile(filepath.Join(dests[i], filepath.Base(src), "photos", "2026", "beach.raw"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("receiver %d: beach.raw did not arrive intact: %v", i+1, err)
		}
	}
	if n, _ := os.ReadDir(dests[1]); len(n) != 0 {
		t.Errorf("the receiver that declined has %d entries", len(n))
	}
	results := map[float64]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		idx, tagged := ev["receiver_index"].(float64)
		switch {
		case ev["event"] == "error" && !tagged:
			if !strings.Contains(ev["message"].(string), "2 of 3 receivers got everything") {
				t.Errorf("final error %v", ev)
			}
		case !tagged:
			t.Errorf("event without its receiver: %s", line)
		case ev["event"] == "done" || ev["event"] == "error":
			results[idx] = ev["event"].(string)
			if _, ok := ev["read_again_bytes"]; ev["event"] == "done" && !ok {
				t.Errorf("done without read_again_bytes: %s", line)
			}
		}
	}
	if results[1] != "done" || results[2] != "error" || results[3] != "done" {
		t.Errorf("results per receiver %v, want done, error, done", results)
	}
}

// On a terminal each receiver has one row; a redraw moves up over the
// rows it drew and rewrites them, and a message in between clears them
// first, so no row is ever left twice on the screen.
func TestManyRowsRedraw(t *testing.T) {
	var out bytes.Buffer
	p := &printer{stdout: &bytes.Buffer{}, stderr: &out}
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	dests := []manyDest{{t: target{value: "10.0.0.1:1"}, dest: receiver{label: "10.0.0.1:1"}},
		{t: target{value: "10.0.0.2:1"}, dest: receiver{label: "10.0.0.2:1"}}}
	r := newManyRows(p, progressBar, now, dests)
	r.tickEvery, r.throttle = 0, 0
	r.onEvent(0, event.Progress{Done: 50, Total: 100})
	first := out.String()
	if strings.Count(first, "\n") != 2 || !strings.Contains(first, "ferry: [1] 10.0.0.1:1  50% [") || !strings.Contains(first, "[2] 10.0.0.2:1: connecting") {
		t.Fatalf("first draw:\n%q", first)
	}
	out.Reset()
	r.ended(1, event.Summary{}, app.ErrDeclined)
	if s := out.String(); !strings.HasPrefix(s, "\x1b[2A\r\x1b[J") || !strings.Contains(s, "[2] 10.0.0.2:1: failed: declined") {
		t.Fatalf("redraw:\n%q", s)
	}
	out.Reset()
	p.warnf("something")
	if s := out.String(); !strings.HasPrefix(s, "\x1b[2A\r\x1b[J") || !strings.HasSuffix(s, "ferry: warning: something\n") {
		t.Fatalf("a message over the rows:\n%q", s)
	}
	out.Reset()
	r.finish()
	p.warnf("after")
	if s := out.String(); strings.Count(s, "\n") != 3 || !strings.HasSuffix(s, "ferry: warning: after\n") {
		t.Fatalf("after finish, the rows then the message:\n%q", s)
	}
	if strings.Contains(out.String(), "\x1b[2A") {
		t.Errorf("a message after finish erased the final rows:\n%q", out.String())
	}
}

// Each row fits the terminal's width as it is at that redraw, whatever
// the row shows; a moving row shows its rate and ETA over the window,
// and "stalled" once no byte moved for a while (the ticker's redraw).
func TestManyRowsFitWidth(t *testing.T) {
	var out bytes.Buffer
	p := &printer{stdout: &bytes.Buffer{}, stderr: &out}
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	long := "a-receiver-with-a-very-long-name-on-the-kitchen-shelf (ab12 cd34 ef56 0011)"
	dests := []manyDest{{t: target{value: "10.0.0.1:1"}, dest: receiver{label: long}},
		{t: target{value: "10.0.0.2:1"}, dest: receiver{label: long}}}
	r := newManyRows(p, progressBar, now, dests)
	r.tickEvery, r.throttle = 0, 0
	cols := 60
	r.cols = func() int { return cols }
	rows := func() []string {
		s := out.String()
		if i := strings.LastIndex(s, "\x1b[J"); i >= 0 {
			s = s[i+len("\x1b[J"):]
		}
		out.Reset()
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	check := func(what string, want ...string) {
		t.Helper()
		got := rows()
		if len(got) != 2 {
			t.Fatalf("%s: %d rows:\n%q", what, len(got), got)
		}
		for _, row := range got {
			if w := cellWidth(row); w > cols-1 {
				t.Errorf("%s: %d cells on a %d-column terminal: %q", what, w, cols, row)
			}
			if strings.Contains(row, "% [") {
				checkProgressbar(t, row) // each moving row is its own progressbar's
			}
		}
		for i, w := range want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: row %d %q, want %q in it", what, i+1, got[i], w)
			}
		}
	}
	r.onEvent(1, event.Connected{PeerName: long})
	check("connected", "[1] a-receiver", "[2] a-receiver")
	for s := int64(1); s <= 3; s++ {
		clock = clock.Add(time.Second)
		r.onEvent(0, event.Progress{Done: s << 20, Total: 100 << 20})
	}
	check("moving", "3% [      ]  eta 1m37s")
	cols = 100
	r.draw(true)
	check("wider", "1.0 MiB/s eta 1m37s")
	cols = 40 // narrowed again
	clock = clock.Add(time.Second)
	r.onEvent(0, event.Progress{Done: 4 << 20, Total: 100 << 20})
	check("narrowed", "[1] ", "[2] ")
	clock = clock.Add(3 * time.Second)
	r.tick()
	check("stalled", "stalled")
	cols = 120
	r.ended(1, event.Summary{}, app.ErrDeclined)
	check("wide", "", "failed: declined")
}
