package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/pick"
)

// Standard input as something to send, as croc, wormhole and age read it:
//
//	tar c photos | ferry send --to ADDR --code CODE -        a file "stdin"
//	... | ferry send --as photos.tar ... -                    named photos.tar
//	ferry send --text - ... < note.txt                        a text snippet
//
// A file named "-" is sent as "./-". Standard input can be read once, so
// "-" and "--text -" do not go together, and it cannot also answer
// questions: a sender reading it needs --code and --to or --peer (or a
// trusted --peer), as any sender without a terminal does. Standard input
// that is a terminal is refused: nobody types a file, and the questions
// would read what was meant as data.
//
// The offer carries every file's size before any byte moves (the receiver
// checks its free space and answers have, resume or take per file), and a
// pipe's size is known only at its end. So a file from standard input is
// first copied into a private temporary folder (0700, removed when the
// command ends, however it ends short of a crash or a second interrupt)
// under its name, and sent from there as any file, hashed and verified.
// That costs the input's size in temporary space and one more pass, and
// the person is told so. Streaming without a size would need a protocol
// change (an entry of unknown size ended by its last data message) that
// every receiver would have to learn; the copy needs none.
//
// A text read from standard input follows core/transfer's limit for
// texts (MaxTextBytes, 1 MiB); longer input is refused before anything
// is sent, with a hint to send it as a file.

// stdinArg is the operand, and the --text value, that means standard
// input.
const stdinArg = "-"

// stdinFileName is the name a file read from standard input gets
// without --as.
const stdinFileName = "stdin"

// stdinUse says what the send command reads from standard input.
type stdinUse struct {
	file bool // "-" among the paths: a file
	text bool // --text -: a text snippet
}

// takeStdin removes "-" from o.paths and checks that standard input can
// serve what asks for it.
func takeStdin(o *sendOpts, stdinTerminal bool) (stdinUse, error) {
	var u stdinUse
	paths := o.paths[:0]
	for _, p := range o.paths {
		if p != stdinArg {
			paths = append(paths, p)
			continue
		}
		if u.file {
			return u, usagef("name it once", "standard input (-) is given twice")
		}
		u.file = true
	}
	o.paths = paths
	u.text = o.text == stdinArg
	switch {
	case u.file && u.text:
		return u, usagef("send the file with -, or the text with --text -: standard input is read once", "- and --text - cannot be used together")
	case o.as != "" && !u.file:
		return u, usagef("--as names the file read from standard input: add - to the paths", "--as without -")
	case (u.file || u.text) && stdinTerminal:
		return u, usagef("pipe the data in, like: tar c photos | ferry send --code CODE --to ADDR -", "standard input is a terminal, not data to send")
	}
	if o.as != "" {
		if err := checkStdinName(o.as); err != nil {
			return u, err
		}
	}
	return u, nil
}

func checkStdinName(name string) error {
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.TrimSpace(name) == "" {
		return usagef("give a file name without folders, like photos.tar", "bad --as %q", name)
	}
	return nil
}

// readStdin reads what u says from in and adds it to items: the text
// snippet, or the file spooled under name (default "stdin"). The returned
// function removes the spool; it is never nil.
func readStdin(ctx context.Context, p *printer, in io.Reader, u stdinUse, name string, items []event.Item) ([]event.Item, func(), error) {
	none := func() {}
	switch {
	case u.text:
		text, err := readStdinText(ctx, in)
		if err != nil {
			return nil, none, err
		}
		return append(items, event.Item{Text: text}), none, nil
	case u.file:
		if name == "" {
			name = stdinFileName
		}
		path, cleanup, err := spoolStdin(ctx, p, in, name)
		if err != nil {
			return nil, none, err
		}
		return append(items, event.Item{Path: path}), cleanup, nil
	}
	return items, none, nil
}

// readStdinText reads a text snippet from in, at most MaxTextBytes.
func readStdinText(ctx context.Context, in io.Reader) (string, error) {
	b, err := readCtx(ctx, func() ([]byte, error) {
		return io.ReadAll(io.LimitReader(in, app.MaxTextBytes+1))
	})
	switch {
	case err != nil:
		return "", fmt.Errorf("reading the text from standard input: %w", err)
	case len(b) > app.MaxTextBytes:
		return "", usagef("send it as a file instead: ferry send ... - (reads standard input as a file)",
			"the text on standard input is over the %s limit for a text", humanBytes(app.MaxTextBytes))
	case len(b) == 0:
		return "", usagef("pipe the text in, like: echo hello | ferry send --text - ...", "standard input was empty: no text to send")
	}
	return string(b), nil
}

// spoolStdin copies in to a file called name in a new private temporary
// folder (core/app/pick's Spool) and returns its path and the function that
// removes the folder.
func spoolStdin(ctx context.Context, p *printer, in io.Reader, name string) (string, func(), error) {
	sp := pick.NewSpool("ferry-stdin-")
	dir, err := sp.Dir()
	if err != nil {
		return "", nil, withHint(fmt.Errorf("creating a temporary folder for standard input: %w", err),
			"set TMPDIR to a folder with space, or send a file instead of -")
	}
	p.infof("reading standard input into a temporary file first: the receiver needs its size before the transfer starts")
	type saved struct {
		path string
		n    int64
	}
	s, err := readCtx(ctx, func() (saved, error) {
		path, n, err := sp.Save(name, in)
		return saved{path, n}, err
	})
	if err != nil {
		sp.Close()
		return "", nil, withHint(fmt.Errorf("copying standard input to %s: %w", dir, err),
			"the copy needs as much temporary space as the input: set TMPDIR to a folder with room")
	}
	// The folder is private; the file gets the mode a new file would, so
	// that the receiver's copy is an ordinary one, not a private 0600.
	if err := os.Chmod(s.path, 0o644); err != nil {
		sp.Close()
		return "", nil, err
	}
	p.infof("read %s from standard input as %s", humanBytes(s.n), safe(name))
	return s.path, sp.Close, nil
}

// readCtx runs a read that blocks (a pipe cannot be interrupted) and
// returns early when ctx ends, so that an interrupt while standard input
// is read ends the command; the read is left to the process's exit.
func readCtx[T any](ctx context.Context, read func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			return zero, c
		}
		return zero, ctx.Err()
	}
}
