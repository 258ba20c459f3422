package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
)

// prompter asks a person questions on the terminal, one at a time: the
// question goes to stderr (output rule 5), the answer comes from stdin.
//
// A blocking read of a terminal cannot be interrupted, so one goroutine
// reads stdin line by line for the life of the process and ask waits for
// its next line or for the context, whichever comes first. That reader is
// started on the first question (or by between) and ends with the
// process: a question cut short by a cancel leaves no read behind that
// could steal the answer to the next one.
//
// A line typed while no question is open waits for the next question,
// unless between has given it a handler: then it is a command.
type prompter struct {
	p      *printer
	in     io.Reader
	once   sync.Once
	opened chan struct{} // a question opened (capacity 1)

	mu    sync.Mutex
	open  chan line    // the open question's answer, nil when none is
	other func(string) // takes a line typed while no question is open
}

type line struct {
	s   string
	err error
}

// errNoAnswer is stdin ending before an answer came.
var errNoAnswer = errors.New("no answer: standard input closed")

func (q *prompter) start() {
	q.opened = make(chan struct{}, 1)
	go func() {
		r := bufio.NewReader(q.in)
		for {
			s, err := r.ReadString('\n')
			if err == io.EOF && s != "" {
				err = nil
			}
			q.deliver(line{s, err})
			for err != nil { // stdin is over: so is every later question
				q.deliver(line{"", err})
			}
		}
	}()
}

// deliver hands l to the open question, or when none is open to the
// handler, or else waits for the next question to open.
func (q *prompter) deliver(l line) {
	for {
		q.mu.Lock()
		ans, other := q.open, q.other
		q.open = nil
		q.mu.Unlock()
		switch {
		case ans != nil:
			ans <- l // buffered: never waits for a question gone
			return
		case other != nil && l.err == nil:
			other(strings.TrimSpace(l.s))
			return
		}
		<-q.opened
	}
}

// between starts reading stdin now and hands each line typed while no
// question is open to handle, on the reader's goroutine: handle must not
// block. Questions still take the lines typed while they are open.
func (q *prompter) between(handle func(string)) {
	q.mu.Lock()
	q.other = handle
	q.mu.Unlock()
	q.once.Do(q.start)
}

// ask prints question and returns the line typed, trimmed.
func (q *prompter) ask(ctx context.Context, question string) (string, error) {
	q.once.Do(q.start)
	ans := make(chan line, 1)
	q.mu.Lock()
	q.open = ans
	q.mu.Unlock()
	select {
	case q.opened <- struct{}{}:
	default: // the reader has been told already
	}
	q.p.ask(question)
	select {
	case l := <-ans:
		if l.err != nil {
			q.p.stderrLine("")
			if l.err == io.EOF {
				return "", errNoAnswer
			}
			return "", l.err
		}
		return strings.TrimSpace(l.s), nil
	case <-ctx.Done():
		q.mu.Lock()
		if q.open == ans {
			q.open = nil
		}
		q.mu.Unlock()
		q.p.stderrLine("")
		return "", context.Cause(ctx)
	}
}

// confirm asks a yes/no question whose default is no.
func (q *prompter) confirm(ctx context.Context, question string) (bool, error) {
	s, err := q.ask(ctx, question+" [y/N] ")
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
