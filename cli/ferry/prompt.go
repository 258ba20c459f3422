package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
)

// prompter asks a person questions on the terminal: the question goes to
// stderr (output rule 5), the answer comes from stdin.
//
// A blocking read of a terminal cannot be interrupted, so one goroutine
// reads stdin line by line for the life of the process and ask waits for
// its next line or for the context, whichever comes first. That reader is
// started on the first question and ends when stdin does (or with the
// process): a question cut short by a cancel leaves no read behind that
// could steal the answer to the next one.
type prompter struct {
	p     *printer
	in    io.Reader
	once  sync.Once
	lines chan line
}

type line struct {
	s   string
	err error
}

// errNoAnswer is stdin ending before an answer came.
var errNoAnswer = errors.New("no answer: standard input closed")

func (q *prompter) start() {
	q.lines = make(chan line)
	go func() {
		r := bufio.NewReader(q.in)
		for {
			s, err := r.ReadString('\n')
			if err == io.EOF && s != "" {
				err = nil
			}
			q.lines <- line{s, err}
			if err != nil {
				close(q.lines)
				return
			}
		}
	}()
}

// ask prints question and returns the line typed, trimmed.
func (q *prompter) ask(ctx context.Context, question string) (string, error) {
	q.once.Do(q.start)
	q.p.ask(question)
	select {
	case l, ok := <-q.lines:
		if !ok || l.err != nil {
			q.p.stderrLine("")
			if !ok || l.err == io.EOF {
				return "", errNoAnswer
			}
			return "", l.err
		}
		return strings.TrimSpace(l.s), nil
	case <-ctx.Done():
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
