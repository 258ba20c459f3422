package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// errHelp is returned by parseArgs when the person asked for --help.
var errHelp = errors.New("help requested")

// stringList is a flag that may be repeated (--iface eth0 --iface wlan0).
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = append(*s, v)
	return nil
}

// transferFlags are the flags send and receive share, with the same
// meaning in both.
type transferFlags struct {
	name              string
	ifaces            stringList
	json, diag, quiet bool
	noHistory         bool // --no-history: leave this transfer out of the history
}

func (t *transferFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.name, "name", "", "")
	fs.Var(&t.ifaces, "iface", "")
	fs.BoolVar(&t.json, "json", false, "")
	fs.BoolVar(&t.diag, "diag", false, "")
	fs.BoolVar(&t.quiet, "quiet", false, "")
	fs.BoolVar(&t.quiet, "q", false, "")
	fs.BoolVar(&t.noHistory, "no-history", false, "")
}

// progressFor says how a transfer shows its progress: not at all under
// --quiet or --json, as a bar when stderr is a terminal, else as lines.
func (t transferFlags) progressFor(stderrTerminal bool) progressMode {
	switch {
	case t.quiet || t.json:
		return progressOff
	case stderrTerminal:
		return progressBar
	}
	return progressPlain
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses flags wherever they stand among the operands, so that
// "ferry send big.iso --code 123456" works as well as the other order.
// Everything after "--" is an operand. Flags are accepted with one dash or
// two, as the flag package does.
func parseArgs(fs *flag.FlagSet, args []string) (operands []string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usagef(fmt.Sprintf("run 'ferry %s --help' for usage", fs.Name()), "%s", flagMessage(err))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return operands, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(operands, rest...), nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// flagMessage rewrites the flag package's errors in ferry's voice.
func flagMessage(err error) string {
	s := err.Error()
	if name, ok := strings.CutPrefix(s, "flag provided but not defined: "); ok {
		return "unknown flag " + dashes(name)
	}
	if name, ok := strings.CutPrefix(s, "flag needs an argument: "); ok {
		return "flag " + dashes(name) + " needs a value"
	}
	// "invalid value "x" for flag -timeout: parse error"
	return strings.Replace(s, "for flag -", "for flag --", 1)
}

func dashes(name string) string {
	return "--" + strings.TrimLeft(name, "-")
}

// positiveDuration is a --timeout value: a Go duration ("3s", "1m") or a
// plain number of seconds, above zero.
type positiveDuration time.Duration

func (d *positiveDuration) String() string { return time.Duration(*d).String() }
func (d *positiveDuration) Set(v string) error {
	p, err := time.ParseDuration(v)
	if err != nil {
		secs, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil {
			return errors.New("not a duration (e.g. 3s, 500ms, 1m)")
		}
		p = time.Duration(secs * float64(time.Second))
	}
	if p <= 0 {
		return errors.New("must be above zero")
	}
	*d = positiveDuration(p)
	return nil
}
