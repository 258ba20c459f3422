package main

// The transfer history: the "ferry history" command (core/history).
//
// Decisions: history is on by default, like a browser's downloads list;
// --no-history on send or receive, or FERRY_NO_HISTORY=1 in the
// environment (for a shell profile: every command), turns recording off,
// and "ferry history clear" empties it. What a transfer records, and
// when, is core/app's decision (its package doc): the Node that send and
// receive run on records every transfer. A history that cannot be
// written is a warning: the transfer itself is what the exit code says.

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/present"
	"github.com/ferry-project/ferry/core/app/stores"
)

// historyOff reads FERRY_NO_HISTORY: any value but "" and "0" turns
// recording off.
func historyOff(e *env) bool {
	v := e.getenv("FERRY_NO_HISTORY")
	return v != "" && v != "0"
}

type historyOpts struct {
	json  bool
	limit int
}

const defaultHistoryLimit = 20

// historyFlags defines the flags of history (or history clear) on o:
// cmdHistory parses with them, and the shell completions (completion.go)
// list them.
func historyFlags(clear bool, o *historyOpts) *flag.FlagSet {
	fs := newFlagSet("history")
	fs.BoolVar(&o.json, "json", false, "")
	if !clear {
		fs.IntVar(&o.limit, "limit", defaultHistoryLimit, "")
	}
	return fs
}

// cmdHistory runs "ferry history [--json] [--limit N]" and "ferry
// history clear".
func cmdHistory(e *env, p *printer, args []string) error {
	clear := len(args) > 0 && args[0] == "clear"
	if clear {
		args = args[1:]
	}
	var o historyOpts
	operands, err := parseArgs(historyFlags(clear, &o), args)
	if err == errHelp {
		p.stdoutText(historyUsage)
	}
	if err != nil {
		return err
	}
	if len(operands) > 0 {
		return usagef("run 'ferry history --help' for usage", "unexpected argument %q", operands[0])
	}
	if o.limit < 0 {
		return usagef("--limit 0 shows every transfer", "bad --limit %d", o.limit)
	}
	p.json = o.json
	store, err := stores.OpenHistory("")
	if err != nil {
		return err
	}
	if clear {
		return historyClear(p, store)
	}
	recs, aside, err := store.List()
	if aside != nil {
		p.warnf("%s", aside)
	}
	if err != nil {
		return historyError(err)
	}
	if o.limit > 0 && len(recs) > o.limit {
		recs = recs[:o.limit]
	}
	if p.json {
		for _, r := range recs {
			p.event(r)
		}
		return nil
	}
	if len(recs) == 0 {
		p.infof("no transfers in the history yet")
	}
	if historyOff(e) {
		p.infof("FERRY_NO_HISTORY is set: new transfers are not recorded")
	}
	if len(recs) == 0 {
		return nil
	}
	p.stdoutText(historyTable(recs, e.now().Local()))
	return nil
}

func historyClear(p *printer, store *stores.History) error {
	n, aside, err := store.Clear()
	if aside != nil {
		p.warnf("%s", aside)
	}
	if err != nil {
		return historyError(err)
	}
	p.event(event.HistoryCleared{Count: n})
	p.infof("cleared the history: %s removed", plural(n, "transfer", "transfers"))
	return nil
}

func historyError(err error) error {
	if errors.Is(err, stores.ErrHistoryVersion) {
		return withHint(err, "a newer ferry wrote it: use that one, or move the file away to start a new history")
	}
	return err
}

// The table's width: it fits an 80-column terminal. WHEN, PEER and
// SIZE are fixed, RESULT as wide as its longest cell (at most 23: a
// longer failure kind is cut, --json has it whole), WHAT takes the rest.
const (
	tableWidth = 80
	whenWidth  = 12 // "Dec 03 10:37" this year, "2025-12-03" before
	peerWidth  = 18 // "from " and the name; "to " and an IPv4 address and port
	sizeWidth  = 8  // "1023 MiB", right-aligned
	resultMax  = 23 // "failed: connection_lost"
	gapWidth   = 2
)

// historyTable renders records as a table of at most 80 columns, times
// in now's location. Every string a peer chose, or that names a file,
// goes through safeCap.
func historyTable(recs []event.History, now time.Time) string {
	results := make([]string, len(recs))
	resW := len("RESULT")
	for i, r := range recs {
		results[i] = resultCell(r)
		resW = max(resW, utf8.RuneCountInString(results[i]))
	}
	whatW := tableWidth - whenWidth - peerWidth - sizeWidth - resW - 4*gapWidth
	var b strings.Builder
	row := func(when, peer, what, size, result string) {
		b.WriteString(pad(when, whenWidth+gapWidth))
		b.WriteString(pad(peer, peerWidth+gapWidth))
		b.WriteString(pad(what, whatW+gapWidth))
		b.WriteString(strings.Repeat(" ", max(sizeWidth-utf8.RuneCountInString(size), 0)) + size)
		b.WriteString(strings.Repeat(" ", gapWidth))
		b.WriteString(result)
		b.WriteByte('\n')
	}
	row("WHEN", "PEER", "WHAT", "SIZE", "RESULT")
	for i, r := range recs {
		size := "-"
		if present.HasSize(r) {
			size = humanBytes(r.Bytes)
		}
		row(whenCell(r.Time().In(now.Location()), now), peerCell(r), whatCell(r, whatW), size, results[i])
	}
	return b.String()
}

func whenCell(at, now time.Time) string {
	if at.Year() == now.Year() {
		return at.Format("Jan 02 15:04")
	}
	return at.Format("2006-01-02")
}

func peerCell(r event.History) string {
	dir := "from "
	if r.Direction == stores.HistorySent {
		dir = "to "
	}
	who := firstNonEmpty(present.Who(r), "?")
	return dir + safeCap(who, peerWidth-len(dir))
}

// whatCell is "NAME +N": the first top-level name and how many more,
// cut to width in the name.
func whatCell(r event.History, width int) string {
	if len(r.Names) == 0 {
		return "-"
	}
	suffix := ""
	if more := present.MoreNames(r); more > 0 {
		suffix = " +" + strconv.Itoa(more)
	}
	room := max(width-len(suffix), 4)
	return safeCap(r.Names[0], room) + suffix
}

func resultCell(r event.History) string {
	if r.Outcome == stores.HistoryFailed {
		return safeCap("failed: "+r.ErrorKind, resultMax)
	}
	return r.Outcome
}

// pad right-pads s with spaces to width printed characters.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s + " "
}
