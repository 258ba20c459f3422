package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ferry-project/ferry/tests/proc"
)

// stderrPipe gives a printer a stderr that a test can wait for text in.
func stderrPipe(t *testing.T) (*printer, *proc.Output) {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	return &printer{stderr: w}, proc.Collect(r)
}

// Lines typed while no question is open go to the handler given to
// between; a line typed while a question is open answers it; without a
// handler a line typed early waits for the next question; once stdin
// ends every question gets errNoAnswer.
func TestPrompterBetweenQuestions(t *testing.T) {
	ctx := t.Context()
	t.Run("early line waits for the question", func(t *testing.T) {
		q := &prompter{p: &printer{stderr: io.Discard}, in: strings.NewReader("yes\n")}
		if ok, err := q.confirm(ctx, "go?"); err != nil || !ok {
			t.Fatalf("confirm: %v %v, want yes", ok, err)
		}
		if _, err := q.ask(ctx, "more?"); !errors.Is(err, errNoAnswer) {
			t.Fatalf("question after stdin ended: %v, want errNoAnswer", err)
		}
		if _, err := q.ask(ctx, "and more?"); !errors.Is(err, errNoAnswer) {
			t.Fatalf("second question after stdin ended: %v, want errNoAnswer", err)
		}
	})
	t.Run("handler between questions", func(t *testing.T) {
		r, w := io.Pipe()
		defer w.Close()
		p, stderr := stderrPipe(t)
		q := &prompter{p: p, in: r}
		got := make(chan string, 4)
		q.between(func(s string) { got <- s })
		io.WriteString(w, " 2 \n") // the pipe returns once the reader has it
		if s := <-got; s != "2" {
			t.Fatalf("handler got %q, want 2", s)
		}
		answer := make(chan string, 1)
		go func() {
			s, err := q.ask(ctx, "cancel [2]? ")
			if err != nil {
				s = err.Error()
			}
			answer <- s
		}()
		stderr.WaitFor(t, "cancel [2]?", 10*time.Second)
		io.WriteString(w, "y\n")
		if s := <-answer; s != "y" {
			t.Fatalf("question got %q, want y", s)
		}
		io.WriteString(w, "x\n")
		if s := <-got; s != "x" {
			t.Fatalf("after the question, handler got %q, want x", s)
		}
		if len(got) != 0 {
			t.Fatalf("handler got a line meant for the question: %q", <-got)
		}
	})
	t.Run("cancelled question leaves the next line to the handler", func(t *testing.T) {
		r, w := io.Pipe()
		defer w.Close()
		p, stderr := stderrPipe(t)
		q := &prompter{p: p, in: r}
		got := make(chan string, 1)
		q.between(func(s string) { got <- s })
		qctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { _, err := q.ask(qctx, "sure? "); done <- err }()
		stderr.WaitFor(t, "sure?", 10*time.Second)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled question: %v", err)
		}
		io.WriteString(w, "3\n")
		if s := <-got; s != "3" {
			t.Fatalf("handler got %q, want 3", s)
		}
	})
}
