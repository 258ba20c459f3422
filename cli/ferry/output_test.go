package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

func TestPrinterRules(t *testing.T) {
	tests := []struct {
		name        string
		quiet, json bool
		wantStderr  string
		wantStdout  string
	}{
		{"default", false, false,
			"ferry: status\nferry: code 123456\nferry: warning: careful\nferry: error: it broke\nferry: hint: fix it\n", "payload\n"},
		{"quiet", true, false,
			"ferry: code 123456\nferry: warning: careful\nferry: error: it broke\nferry: hint: fix it\n", "payload\n"},
		{"json", false, true,
			"ferry: warning: careful\nferry: error: it broke\nferry: hint: fix it\n", `{"event":"x"}` + "\n"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		p := &printer{stdout: &stdout, stderr: &stderr, quiet: tt.quiet, json: tt.json}
		p.infof("status")
		p.noticef("code %s", "123456")
		p.warnf("careful")
		if !tt.json {
			p.stdoutText("payload\n")
		}
		p.event(struct {
			Event string `json:"event"`
		}{"x"})
		p.fail("it broke", "fix it")
		if stderr.String() != tt.wantStderr {
			t.Errorf("%s: stderr\n%q\nwant\n%q", tt.name, stderr.String(), tt.wantStderr)
		}
		if stdout.String() != tt.wantStdout {
			t.Errorf("%s: stdout %q, want %q", tt.name, stdout.String(), tt.wantStdout)
		}
	}
}

// TestOutputWrittenOnce enforces that output.go is the one writer: no
// other file of the command names os.Stdout or os.Stderr or prints with
// fmt.Print*, except main, which hands them to env.
func TestOutputWrittenOnce(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "output.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case id.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") && name != "main.go",
				id.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"),
				id.Name == "log":
				t.Errorf("%s: %s.%s writes around output.go", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			}
			return true
		})
	}
	_ = os.Stdout
}

// signalWriter is a writer safe for the linger's goroutine that says on
// wrote when it was written to.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return w.buf.Write(b)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestJSONLinger: entry lines wait for the ones that follow, but
// never longer than jsonLinger, and any other event, a message on stderr
// or the end of the run writes them first, in order.
func TestJSONLinger(t *testing.T) {
	stdout := &signalWriter{wrote: make(chan struct{}, 1)}
	var stderr signalWriter
	p := &printer{stdout: stdout, stderr: &stderr, json: true}
	file := func(name string) event.EntryDone {
		return event.EntryDone{Entry: event.Entry{Path: name, Kind: event.KindFile, Size: 1}, Outcome: event.Received}
	}
	line := func(ev event.Event) string {
		b, err := event.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}

	p.event(file("a"))
	p.event(file("b"))
	progress := event.Progress{Done: 2, Total: 3}
	p.event(progress)
	if got, want := stdout.String(), line(file("a"))+line(file("b"))+line(progress); got != want {
		t.Fatalf("after a progress event stdout is\n%s\nwant\n%s", got, want)
	}

	<-stdout.wrote // the write above
	p.event(file("c"))
	select {
	case <-stdout.wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("a lone entry line was never written")
	}
	if got, want := stdout.String(), line(file("a"))+line(file("b"))+line(progress)+line(file("c")); got != want {
		t.Fatalf("after the linger stdout is\n%s\nwant\n%s", got, want)
	}

	p.event(file("d"))
	p.warnf("careful")
	if !strings.HasSuffix(stdout.String(), line(file("d"))) {
		t.Errorf("a warning was written before the line waiting:\n%s", stdout.String())
	}
	p.event(file("e"))
	report(p, nil)
	if !strings.HasSuffix(stdout.String(), line(file("e"))) {
		t.Errorf("the run ended with a line still waiting:\n%s", stdout.String())
	}
}

// TestJSONEntryTagged: a receiver of several senders writes an entry
// line with its transfer's number, MarshalFor's bytes, held like any
// entry line and written before the next other event, in order.
func TestJSONEntryTagged(t *testing.T) {
	var stdout bytes.Buffer
	p := &printer{stdout: &stdout, stderr: &bytes.Buffer{}, json: true}
	entry := event.EntryDone{Entry: event.Entry{Path: "a\"<\u2028\xff", Kind: event.KindFile, Size: 1}, Outcome: event.Received, SavedAs: "b"}
	p.eventFor(entry, 3)
	p.eventFor(entry, 4)
	if stdout.Len() != 0 {
		t.Errorf("entry lines written at once: %q", stdout.String())
	}
	progress := event.Progress{Done: 1, Total: 2}
	p.eventFor(progress, 3)
	var want []byte
	for _, e := range []struct {
		ev event.Event
		id int64
	}{{entry, 3}, {entry, 4}, {progress, 3}} {
		b, err := event.MarshalFor(e.ev, e.id)
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(want, b...), '\n')
	}
	if stdout.String() != string(want) {
		t.Errorf("stdout\n%s\nwant\n%s", stdout.String(), want)
	}
}

// An entry event, one a file, costs the session's onEvent no allocation
// on either end, with --json (its line appended to the lines waiting)
// and with the progress bar (nothing drawn for it: the bar redraws on
// Progress events and its ticker, not per file).
func TestEntryEventAllocs(t *testing.T) {
	for _, json := range []bool{true, false} {
		p := &printer{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, json: json}
		p.pending = make([]byte, 0, 2*pendingMax) // grown as a long run grows it
		mode := progressBar
		if json {
			mode = progressOff
		}
		rs := &receiveSession{p: p, pr: newProgress(p, mode, time.Now)}
		ss := &sendSession{p: p, pr: newProgress(p, mode, time.Now)}
		if n := testing.AllocsPerRun(200, func() { rs.onEvent(nil, entryEvent) }); n != 0 {
			t.Errorf("json %v: the receiver allocates %v per entry event", json, n)
		}
		if n := testing.AllocsPerRun(200, func() { ss.onEvent(nil, entryEvent) }); n != 0 {
			t.Errorf("json %v: the sender allocates %v per entry event", json, n)
		}
		p.flush()
	}
}
