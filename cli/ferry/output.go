package main

// Output rules. Every line ferry prints goes through this file, and every
// message follows these rules; no other file writes to the terminal.
//
//  1. Standard output carries only what a script would capture: received
//     text snippets, the peers table, the trust list, the version, and,
//     with --json, one event object per line and nothing else.
//  2. Everything meant for a person goes to standard error, one message
//     per line, each line starting with "ferry: ". The one exception is
//     the usage text, printed as it is: to stdout when asked for (--help),
//     to stderr before the error when no command was given.
//  3. Messages are lowercase and have no trailing period. Codes,
//     fingerprints and local paths are printed as they are. Every string
//     a peer chose (its device name, the paths in its offer, its abort
//     reason, a name found over mDNS or kept in the trust file) goes
//     through safe (safe.go) first: control and format characters shown
//     escaped, length capped. As a second line of defence, every message
//     line is escaped whole before it is written, so an error text that
//     quotes a peer (core's "the sender ended the transfer: REASON")
//     cannot forge a line either. JSON events carry the raw strings,
//     escaped as encoding/json escapes them (the entry line, one a file,
//     by core/app/event's own encoder, to the same bytes).
//  4. A failure is one line, "ferry: error: what failed: why", printed
//     once, at the end of the run. It may be followed by one line
//     "ferry: hint: what to do about it". A problem that does not stop the
//     run is "ferry: warning: ...", which may be followed by a hint too.
//  5. A question ends with its choices and the default in brackets
//     ("accept? [y/N] ") and is asked only when standard input is a
//     terminal and --json is off.
//  6. --quiet leaves errors, warnings and questions, plus the receiver's
//     code when it chose one itself (nobody could send to it otherwise).
//     --json leaves errors and warnings on stderr: the events say the rest.
//  7. Only the progress bar redraws a line, and only when standard error is
//     a terminal. Anywhere else progress is a plain line every two seconds
//     and no carriage return is ever written.
//  8. A received text snippet is content the person asked for: written
//     unchanged to stdout when stdout is not a terminal (a pipe or a file
//     gets the sender's bytes), and with control characters other than
//     newline and tab escaped when it is a terminal.

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

const prefix = "ferry: "

// silenceStdLogger keeps the standard logger off stderr. Nothing of
// Ferry's writes to it; grandcat/zeroconf does, unasked, in its own format
// ("2026/01/02 03:04:05 [zeroconf] no suitable IPv6 interface: ..."),
// what discovery already reports in Ferry's words (mdnsSkips).
func silenceStdLogger() { log.SetOutput(io.Discard) }

// printer is the one writer of stdout and stderr. Its methods are safe to
// call from the transfer's event goroutine and the command's goroutine at
// once.
type printer struct {
	mu     sync.Mutex
	stdout io.Writer
	stderr io.Writer
	quiet  bool // --quiet
	json   bool // --json
	// stdoutTerminal says whether stdout is a terminal: received text
	// is escaped there (rule 8).
	stdoutTerminal bool
	// debugRuntime (FERRY_DEBUG_RUNTIME=1) adds the process's goroutine
	// and descriptor counts to done and error events.
	debugRuntime bool
	// line, when set, is a redrawn line (the progress bar) that must be
	// cleared before anything else is written to stderr.
	line interface{ Clear() error }
	// pending holds the JSON lines of the frequent events (entry, one a
	// file) not yet written; linger writes them at most jsonLinger after
	// the first of them (see event).
	pending []byte
	linger  *time.Timer
	lingers bool // linger is set to fire
}

// jsonLinger is the longest a frequent event's JSON line waits to be
// written with the ones that follow it. A folder of small files makes an
// entry event per file, thousands a second, and a write call for each
// doubled the calls the receiver makes per file beside the file's own;
// a program reading the lines sees them this much later at most, and
// every other event writes them at once.
const jsonLinger = 10 * time.Millisecond

// pendingMax is how much pending may hold before it is written anyway.
const pendingMax = 64 << 10

// infof prints a status line for a person; --quiet and --json drop it.
func (p *printer) infof(format string, args ...any) {
	if p.quiet || p.json {
		return
	}
	p.message(prefix + fmt.Sprintf(format, args...))
}

// noticef prints a status line that even --quiet keeps (only the code a
// receiver chose itself, today). --json drops it: the event carries it.
func (p *printer) noticef(format string, args ...any) {
	if p.json {
		return
	}
	p.message(prefix + fmt.Sprintf(format, args...))
}

// warnf prints a warning; nothing drops it.
func (p *printer) warnf(format string, args ...any) {
	p.message(prefix + "warning: " + fmt.Sprintf(format, args...))
}

// fail prints the run's one error and its hint, if any.
func (p *printer) fail(msg, hint string) {
	p.message(prefix + "error: " + msg)
	if hint != "" {
		p.message(prefix + "hint: " + hint)
	}
}

// stderrHint prints a hint that belongs to the warning just printed;
// nothing drops it. An empty hint (a failure with none, such as a
// decline) prints nothing, not an empty "hint:" line.
func (p *printer) stderrHint(hint string) {
	if hint == "" {
		return
	}
	p.message(prefix + "hint: " + hint)
}

// ask prints a question without a newline, for the answer to follow on
// the same line.
func (p *printer) ask(question string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	p.clearLine()
	io.WriteString(p.stderr, escape(prefix+question, 0, false))
}

// progressLine prints one plain progress line (rule 7); --quiet and
// --json drop it.
func (p *printer) progressLine(s string) { p.infof("%s", s) }

// stdoutText writes payload (a received snippet, a table, the version) to
// stdout. With --json, stdout holds events only, so payload goes as events
// and this is never called.
func (p *printer) stdoutText(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	p.clearLine()
	io.WriteString(p.stdout, s)
}

// stdoutSnippet writes a received text snippet to stdout (rule 8): as
// sent when stdout is not a terminal, with control characters other than
// newline and tab escaped when it is.
func (p *printer) stdoutSnippet(s string) {
	if p.stdoutTerminal {
		s = escape(s, 0, true)
	}
	p.stdoutText(s)
}

// event writes one JSON event line to stdout when --json is on.
func (p *printer) event(ev any) { p.jsonLine(ev, 0, false) }

// eventFor writes ev as transfer id's: its JSON line carries the
// transfer's number ("transfer", 0 for the receiver's own events), for a
// receiver of several senders at once.
func (p *printer) eventFor(ev event.Event, id int64) { p.jsonLine(ev, id, true) }

// jsonLine writes ev's line, tagged with transfer id when tagged. The
// entry event, one a file, is appended to pending by core/app/event's
// hand-written encoder, under the lock and with nothing allocated, and
// waits there (see frequent); every other event is encoded before the
// lock is taken and written at once, with any lines still waiting
// before it.
func (p *printer) jsonLine(ev any, id int64, tagged bool) {
	if !p.json {
		return
	}
	if frequent(ev) {
		e := ev.(event.Event) // as it came: a conversion would box it again
		p.mu.Lock()
		defer p.mu.Unlock()
		if tagged {
			p.pending, _ = event.AppendJSONFor(p.pending, e, id) // an entry always encodes
		} else {
			p.pending, _ = event.AppendJSON(p.pending, e)
		}
		p.pending = append(p.pending, '\n')
		if len(p.pending) >= pendingMax {
			p.flushLocked()
		} else if !p.lingers {
			if p.linger == nil {
				p.linger = time.AfterFunc(jsonLinger, p.flush)
			} else {
				p.linger.Reset(jsonLinger)
			}
			p.lingers = true
		}
		return
	}
	if p.debugRuntime && !tagged { // a tagged line never carried them
		switch e := ev.(type) {
		case event.Done:
			e.Runtime = countRuntime()
			ev = e
		case event.Error:
			e.Runtime = countRuntime()
			ev = e
		}
	}
	var b []byte
	var err error
	if tagged {
		b, err = event.MarshalFor(ev.(event.Event), id)
	} else {
		b, err = marshalEvent(ev)
	}
	if err != nil {
		// Every event is a plain struct of strings and numbers; failing to
		// encode one is a bug in this package.
		panic(fmt.Sprintf("encoding event %T: %v", ev, err))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(append(p.pending, b...), '\n')
	p.flushLocked()
}

// frequent says whether ev comes once per file, often enough for its
// line to wait for the next (jsonLinger). Every other event (progress, a
// few a second, and those that ask something of the program reading the
// lines) is written at once, with any lines still waiting before it.
func frequent(ev any) bool {
	_, ok := ev.(event.EntryDone)
	return ok
}

// flush writes the JSON lines still waiting; report calls it before the
// process exits, and any write to stderr does first, so lines keep their
// order with the messages.
func (p *printer) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
}

func (p *printer) flushLocked() {
	if p.lingers {
		p.linger.Stop()
		p.lingers = false
	}
	if len(p.pending) == 0 {
		return
	}
	p.stdout.Write(p.pending)
	p.pending = p.pending[:0]
}

// setLine installs (or, with nil, removes) the redrawn line.
func (p *printer) setLine(l interface{ Clear() error }) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = l
}

// message writes one line for a person, its control characters escaped
// whole (rule 3's second line of defence; messages of ferry's own have
// none). The trailing newline of a message is dropped first.
func (p *printer) message(s string) {
	p.stderrLine(escape(strings.TrimRight(s, "\n"), 0, false))
}

// stderrLine writes s and a newline to stderr as it is: the usage text,
// the empty line after an unanswered question. Messages go through
// message.
func (p *printer) stderrLine(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	p.clearLine()
	s = strings.TrimRight(s, "\n")
	io.WriteString(p.stderr, s+"\n")
}

func (p *printer) clearLine() {
	if p.line != nil {
		p.line.Clear()
	}
}

// locked runs f holding the output lock, for the progress bar, which
// writes to stderr itself.
func (p *printer) locked(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
	f()
}

// listf prints a line that belongs to a question (the devices to pick
// from): --quiet keeps it, as it keeps the question.
func (p *printer) listf(format string, args ...any) {
	p.message(prefix + fmt.Sprintf(format, args...))
}

// countRuntime counts the goroutines and the entries of /proc/self/fd
// (less the one that reading the folder opens). Where /proc is missing
// open_fds is left out.
func countRuntime() event.Runtime {
	g := runtime.NumGoroutine()
	c := event.Runtime{Goroutines: &g}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		n := len(ents) - 1
		c.OpenFDs = &n
	}
	return c
}

// marshalEvent is ev's JSON line: an event's one form (core/app/event),
// or, for the few objects made here (send-many's tagged events), their
// own.
func marshalEvent(ev any) ([]byte, error) {
	if e, ok := ev.(event.Event); ok {
		return event.Marshal(e)
	}
	return json.Marshal(ev)
}
