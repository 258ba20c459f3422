// Command ferry sends files, folders and text snippets to another device
// on the same network, encrypted end to end, and receives them.
//
// # Commands
//
//	ferry receive   wait for one transfer (or several, with --keep)
//	ferry send      send files, folders or --text to a receiver
//	ferry peers     list the receivers that discovery sees
//	ferry trust     list, add or remove trusted devices
//	ferry history   list the recent transfers, or clear them
//	ferry version   print the version, protocol version and Go version
//	ferry completion  print a bash, zsh or fish completion script
//
// The receiver shows a six-digit code; the sender types it. The receiver
// is found by --to HOST:PORT, by --peer NAME_OR_FINGERPRINT over mDNS, or,
// with neither, picked from a numbered list of what mDNS finds.
//
// # Trusted devices
//
// After a transfer that a code authenticated, either end may trust the
// other (a question on a terminal, --trust without one); core/trust keeps
// the pins. A sender whose receiver, found by --peer or picked from the
// list, advertises a trusted fingerprint sends without a code; one that
// advertises a trusted name with another fingerprint never does. A
// direct address is sent to without a code with --to ADDR --paired NAME,
// which names the trusted device expected there (the address says where,
// the pin says who; the handshake checks the key either way). The
// receiver accepts such a sender only if it trusts it too; a refused
// one (not trusted here, or holding a stale pin for this device) is a
// warning and a "refused" event, from core/transfer's Refused, and the
// receiver goes on waiting, because ending it would let anyone stop a
// receiver.
//
// # Output
//
// The rules every message follows are written at the top of output.go:
// stdout carries only what a script captures (received text, the peers
// table, with --json one event per line), everything for a person goes to
// stderr as "ferry: ..." lines, and a failure is one "ferry: error: ..."
// line with an optional "ferry: hint: ..." line.
//
// # Exit codes
//
//	0  success: the transfer completed and every file was confirmed
//	1  failure: network, disk, protocol, a busy port, an unreachable
//	   address, a receiver busy with another transfer, a broken trust file
//	2  usage: bad flags, or paths that are missing or unreadable, a
//	   receive folder that cannot be written, a code of the wrong form
//	   (checked before anything is sent, so nothing happened)
//	3  authentication failed: wrong code, a code retired after too many
//	   wrong attempts, not paired (the other end does not trust this one)
//	   or key changed (the other end is not the pinned key)
//	4  declined or cancelled, by either end (Ctrl-C, SIGTERM)
//	5  verification failed: a file's hash did not match
//
// # Decisions
//
// Where the brief was silent: a missing or unreadable path, or a --dir
// that does not exist, is a usage error (2), because the command line as
// typed can never succeed; the default download folder, unlike --dir, is
// created when missing. --quiet still prints the code a receiver chose
// itself, since nobody could send to it otherwise. With --keep, a failed
// transfer is a warning and the receiver goes on waiting; an interrupt
// between transfers exits 0. A text snippet is written to stdout as sent,
// with a newline added when it lacks one. Link-local IPv6 addresses are
// left out of the addresses a receiver shows: they cannot be typed
// without a zone.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
)

// softMemoryLimit is the Go runtime's memory limit for the command,
// unless GOMEMLIMIT sets one. It is a target for the garbage collector,
// not a cap: past it the runtime collects more often (and returns memory
// to the OS sooner) rather than let the heap grow with its usual slack,
// which for a receiver holding the largest legal offer (100,000 entries)
// is the difference between staying inside the 32 MiB budget per process
// and not. Live memory over the limit is still allocated; nothing fails
// for it. 20 MiB leaves room for what the limit does not see: the
// binary's text (6 to 8 MiB resident). It was 24 MiB while that receiver
// held 20 MiB live; now that it holds 13, the heap grew to the limit
// with garbage and the limit set the peak (30.4 MiB, 28.0 at 20 MiB).
const softMemoryLimit = 20 << 20

// gcPercent is the garbage collector's GOGC for the command, unless GOGC
// sets one: the heap may grow to five times what is live before a
// collection, not twice. With Go's default a send or receive of 10,000
// small files collected six and three times while its heap grew from 4
// to 8 MiB, each time taking a core's share from the walk or the
// stream; at 400 it collects once or not at all, and the wall falls by
// about 6 % (benches/results/2026-12-05-floor34.md). softMemoryLimit
// still bounds the heap: near it the runtime collects as before, so the
// largest offer's receiver keeps its peak.
const gcPercent = 400

func main() {
	silenceStdLogger()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	e := &env{
		stdin:          os.Stdin,
		stdout:         os.Stdout,
		stderr:         os.Stderr,
		stdinTerminal:  isTerminal(os.Stdin),
		stdoutTerminal: isTerminal(os.Stdout),
		stderrTerminal: isTerminal(os.Stderr),
		getenv:         os.Getenv,
		now:            time.Now,
		signals:        sigs,
		exit:           os.Exit,
	}
	os.Exit(run(context.Background(), os.Args[1:], e))
}

// env is everything the command takes from its process, so that tests can
// run it with buffers, a fake clock and fake signals.
type env struct {
	stdin          io.Reader
	stdout         io.Writer
	stderr         io.Writer
	stdinTerminal  bool
	stdoutTerminal bool
	stderrTerminal bool
	getenv         func(string) string
	now            func() time.Time
	signals        <-chan os.Signal
	exit           func(code int) // a second interrupt exits at once
}

// run runs one command line and returns the exit code.
func run(ctx context.Context, args []string, e *env) int {
	p := &printer{stdout: e.stdout, stderr: e.stderr, stdoutTerminal: e.stdoutTerminal, debugRuntime: e.getenv("FERRY_DEBUG_RUNTIME") == "1"}
	if len(args) == 0 {
		p.stderrLine(topUsage)
		return report(p, usagef("run 'ferry help' for the list of commands", "no command given"))
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "receive", "recv":
		err = cmdReceive(ctx, e, p, rest)
	case "send":
		err = cmdSend(ctx, e, p, rest)
	case "peers":
		err = cmdPeers(ctx, e, p, rest)
	case "trust":
		err = cmdTrust(p, rest)
	case "history":
		err = cmdHistory(e, p, rest)
	case "completion":
		err = cmdCompletion(p, rest)
	case "version", "--version", "-version":
		err = cmdVersion(p, rest)
	case "help", "-h", "--help", "-help":
		err = cmdHelp(p, rest)
	default:
		err = usagef("run 'ferry help' for the list of commands", "unknown command %q", cmd)
	}
	return report(p, err)
}

// report prints the run's one error (output rule 4), as a line on stderr
// and, with --json, an error event, and returns the exit code.
func report(p *printer, err error) int {
	defer p.flush()
	if err == errHelp {
		return exitOK
	}
	code, kind, hint := classify(err)
	if err != nil {
		p.fail(err.Error(), hint)
		p.event(event.Error{Kind: kind, ExitCode: code, Message: err.Error(), Hint: hint})
	}
	return code
}

// forceExit ends the process on a second interrupt, without waiting for
// the peer to hear of the cancel.
func forceExit(e *env, p *printer) {
	p.fail("interrupted twice: exiting without waiting for the other end", "")
	e.exit(exitDeclined)
}
