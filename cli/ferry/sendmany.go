package main

// Sending to several receivers: "ferry send --to A --to B --peer C PATH".
//
// Each --to and --peer is a receiver, in the order given. Each gets its
// own session (transfer.SendMany): its own code or trust, its own accept,
// its own progress row, its own result; one that declines, fails or is
// slow never stops the others, and the files are read once for all.
//
// Codes go, in order, to the receivers that need one: every --to, and
// every --peer that is not a trusted device. On a terminal, a receiver
// left without one is asked for its code when it is found. --paired and
// --trust are for one receiver and are refused here.
//
// Each receiver gets its own history record (history.go), with its own
// peer and outcome, as a send to it alone would.
//
// Exit code: 0 only when every receiver confirmed every file. Otherwise
// the worst of the receivers' codes, from worst to mildest: 5 (a file
// failed verification), 1 (network, disk, not found), 6 (codes stopped),
// 3 (wrong code, not paired, key changed), 4 (declined or cancelled).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/history"
	"github.com/ferry-project/ferry/core/transfer"
	"github.com/ferry-project/ferry/core/trust"
)

// target is one --to or --peer, as given.
type target struct {
	peer  bool
	value string
}

func (t target) flag() string {
	if t.peer {
		return "--peer " + t.value
	}
	return "--to " + t.value
}

// targetFlag is --to or --peer: each use adds a receiver, and the first
// sets the single-receiver field that send.go reads.
type targetFlag struct {
	list  *[]target
	first *string
	peer  bool
}

func (f *targetFlag) String() string { return "" }
func (f *targetFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*f.list = append(*f.list, target{peer: f.peer, value: v})
	if *f.first == "" {
		*f.first = v
	}
	return nil
}

// firstOf is a repeatable flag whose first value also sets a string.
type firstOf struct {
	list  *stringList
	first *string
}

func (f *firstOf) String() string { return "" }
func (f *firstOf) Set(v string) error {
	if err := f.list.Set(v); err != nil {
		return err
	}
	if *f.first == "" {
		*f.first = v
	}
	return nil
}

// checkMany checks a command line with several receivers or codes
// before anything touches the network.
func checkMany(o sendOpts) error {
	switch {
	case len(o.targets) < 2:
		return usagef("give one --code per receiver that needs one, in the order of the receivers",
			"%d codes for %d receiver", len(o.codes), len(o.targets))
	case len(o.codes) > len(o.targets):
		return usagef("give one --code per receiver that needs one, in the order of the receivers",
			"%d codes for %d receivers", len(o.codes), len(o.targets))
	case o.paired != "":
		return usagef("to send to several trusted devices, name each with --peer NAME",
			"--paired goes with one --to, not with several receivers")
	case o.trust:
		return usagef("send to that receiver alone with --trust, or trust it later with 'ferry trust add'",
			"--trust goes with one receiver")
	case len(o.paths) == 0 && o.text == "" && !o.clipboard:
		return usagef("name the files or folders to send, or use --text TEXT", "nothing to send")
	}
	for _, t := range o.targets {
		if t.peer {
			continue
		}
		host, port, err := net.SplitHostPort(t.value)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return usagef("give the address and port the receiver shows, like 192.168.1.20:41234", "bad --to address %q", t.value)
		}
	}
	return checkIfaces(o.ifaces)
}

// manyDest is one receiver as resolved before the sessions start.
type manyDest struct {
	t    target
	dest receiver
	code string
	pin  *trust.Device
	err  error // not found, or no way to authenticate: its result
}

func cmdSendMany(ctx context.Context, e *env, p *printer, o sendOpts) error {
	for _, c := range o.codes {
		if err := codeFlagError(c); err != nil {
			return err
		}
	}
	interactive := e.stdinTerminal && !o.json
	// What to send, as cmdSend gathers it: paths, --text, standard input
	// ("-", --text -), the clipboard.
	items, stdin, done, err := sendItems(ctx, e, &o)
	if err != nil {
		return err
	}
	defer done()
	id, name, err := thisDevice(o.name)
	if err != nil {
		return err
	}
	store := trustStore(p)
	dests, err := assignCodes(o, store, interactive)
	if err != nil {
		return err
	}

	ctx, stop := onSignals(ctx, e.signals, "sender", e.now, func() { forceExit(e, p) })
	defer stop()
	items, removeSpool, err := readStdin(ctx, p, e.stdin, stdin, o.as, items)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer removeSpool()
	q := &prompter{p: p, in: e.stdin}
	for i := range dests {
		if err := resolveDest(ctx, p, q, o, store, &dests[i], interactive); err != nil {
			return interrupted(ctx, err)
		}
	}

	rows := newManyRows(p, o.progressFor(e.stderrTerminal), e.now, dests)
	cfg := transfer.ManyConfig{Items: items, OnEvent: rows.onEvent}
	var live []int // index in dests of each session
	for i, d := range dests {
		if d.err != nil {
			continue
		}
		var key []byte
		if d.pin != nil {
			key = d.pin.Key
		}
		live = append(live, i)
		cfg.To = append(cfg.To, transfer.SendConfig{
			Addrs: d.dest.addrs, Code: d.code, PeerKey: key, Identity: id, Name: name,
			Diag: o.diag,
		})
		p.infof("[%d] connecting to %s", i+1, d.dest.label)
	}
	rows.live = live
	results := make([]transfer.ManyResult, len(dests))
	for i, d := range dests {
		results[i].Addr, results[i].Err = d.dest.addr, d.err
	}
	hist := openHistory(e, p, o.noHistory)
	rec := sourceRecord(e.now(), o.paths, o.text != "")
	if len(cfg.To) > 0 {
		got, _ := transfer.SendMany(ctx, cfg)
		for k, r := range got {
			results[live[k]] = r
		}
	}
	rows.finish()
	recordMany(ctx, hist, rec, dests, results, rows, e.now())
	return reportMany(ctx, p, dests, results, rows)
}

// recordMany adds one history record per receiver, with its own peer,
// offer and outcome, as a send to that receiver alone would; a receiver
// that was not found is recorded as a failed send to the address or name
// given.
func recordMany(ctx context.Context, hist *historyLog, rec history.Record, dests []manyDest, results []transfer.ManyResult, rows *manyRows, now time.Time) {
	if hist == nil {
		return
	}
	for i, d := range dests {
		hist.add(historyRecord(rec, d.dest, d.pin, rows.connected[i], rows.offers[i], interrupted(ctx, results[i].Err), now))
	}
}

// assignCodes gives --code values, in order, to the receivers that need
// one, and fails before any network use when a receiver is left without
// one and nobody can be asked.
func assignCodes(o sendOpts, store *trust.Store, interactive bool) ([]manyDest, error) {
	var devs []trust.Device
	if store != nil {
		devs, _ = store.Devices()
	}
	dests := make([]manyDest, len(o.targets))
	codes := o.codes
	for i, t := range o.targets {
		dests[i].t = t
		if t.peer {
			if _, err := trust.Lookup(devs, t.value); err == nil {
				continue // a trusted device: no code
			}
		}
		if len(codes) > 0 {
			dests[i].code, codes = codes[0], codes[1:]
			continue
		}
		if !interactive {
			return nil, usagef("give one --code per receiver that needs one (every --to, and every --peer that is not trusted), in their order",
				"no code for receiver %d (%s) and %s", i+1, t.flag(), noTerminal(o.json))
		}
	}
	if len(codes) > 0 {
		return nil, usagef("give one --code per receiver that needs one (every --to, and every --peer that is not trusted), in their order",
			"%d more codes than receivers that need one", len(codes))
	}
	return dests, nil
}

// resolveDest finds one receiver and settles how it is authenticated. A
// receiver that cannot be found, or is a trusted name with another key,
// gets that as its result, and the others go on.
func resolveDest(ctx context.Context, p *printer, q *prompter, o sendOpts, store *trust.Store, d *manyDest, interactive bool) error {
	one := o
	one.to, one.peer = "", ""
	if d.t.peer {
		one.peer = d.t.value
	} else {
		one.to = d.t.value
	}
	dest, err := findReceiver(ctx, p, q, one, store)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		d.dest, d.err = typed(d.t.value), err
		p.warnf("%s: %v", d.t.flag(), err)
		return nil
	}
	d.dest = dest
	if d.code == "" && dest.fingerprint != "" && store != nil {
		st, dev, err := store.Classify(dest.name, dest.fingerprint)
		switch {
		case err != nil:
			p.warnf("trusted devices are off: %v", err)
		case st == trust.Trusted:
			p.infof("%s is a trusted device: sending without a code", dest.label)
			d.pin = &dev
			d.dest.label = peerLabel(dev.Name, dev.Fingerprint())
			return nil
		case st == trust.Mismatch:
			d.err = keyChanged(dest.name, dest.fingerprint, dev)
			p.warnf("%s: %v", d.t.flag(), d.err)
			return nil
		}
	}
	if d.code == "" {
		if !interactive {
			d.err = usagef(notTrustedHint, "no code for %s and %s", dest.label, noTerminal(o.json))
			return nil
		}
		if d.code, err = askCode(ctx, q, dest.label); err != nil {
			return err
		}
	}
	return nil
}

// reportMany prints what each receiver got and returns the run's error:
// nil when every receiver confirmed everything.
func reportMany(ctx context.Context, p *printer, dests []manyDest, results []transfer.ManyResult, rows *manyRows) error {
	var (
		failed []string
		worst  error
	)
	for i, r := range results {
		label := rows.label(i)
		if r.Err == nil {
			p.event(tag(manyDoneEvent{event.NewDone(r.Summary, "sender", false), r.ReadAgain}, i, dests[i].t.value))
			again := ""
			if r.ReadAgain > 0 {
				again = fmt.Sprintf(" (%s read from disk again for it: it fell behind the others)", humanBytes(r.ReadAgain))
			}
			p.infof("[%d] sent %s to %s%s, every file confirmed%s", i+1, describeSummary(r.Summary), label, rateSuffix(r.Summary), again)
			continue
		}
		err := interrupted(ctx, r.Err)
		code, kind, hint := classify(err)
		p.event(tag(event.Error{Kind: kind, ExitCode: code, Message: err.Error(), Hint: hint}, i, dests[i].t.value))
		p.infof("[%d] not sent to %s: %v", i+1, label, err)
		failed = append(failed, fmt.Sprintf("%s (%s)", label, kindWords(kind)))
		if worst == nil || severity(code) > severity(exitOf(worst)) {
			worst = err
		}
	}
	if worst == nil {
		return nil
	}
	return &manyFailed{msg: fmt.Sprintf("%d of %d receivers got everything; not %s",
		len(results)-len(failed), len(results), strings.Join(failed, ", ")), worst: worst}
}

func exitOf(err error) int { c, _, _ := classify(err); return c }

// severity orders exit codes from mildest to worst, for the exit code of
// a send to several receivers.
func severity(code int) int {
	switch code {
	case exitDeclined:
		return 1
	case exitWrong:
		return 2
	case exitStopped:
		return 3
	case exitUsage, exitFailure:
		return 4
	case exitVerify:
		return 5
	}
	return 0
}

func kindWords(kind string) string { return strings.ReplaceAll(kind, "_", " ") }

// manyDoneEvent is a receiver's done event in a send to several: with
// the bytes read from disk again for it alone (0 when it shared every
// read with the others).
type manyDoneEvent struct {
	event.Done
	ReadAgain int64
}

func (m manyDoneEvent) MarshalJSON() ([]byte, error) {
	b, err := event.Marshal(m.Done)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(b[:len(b)-1], `,"read_again_bytes":%d}`, m.ReadAgain), nil
}

// manyFailed is the run's one error when some receivers did not get
// everything: its text names them, and errors.Is and the exit code follow
// the worst.
type manyFailed struct {
	msg   string
	worst error
}

func (e *manyFailed) Error() string { return e.msg }
func (e *manyFailed) Unwrap() error { return e.worst }

// tag adds the receiver to a JSON event: "receiver_index" (from 1, in the
// order of --to and --peer) and "receiver" (that flag's value as given).
func tag(ev any, i int, value string) json.RawMessage {
	b, err := marshalEvent(ev)
	if err != nil {
		panic(fmt.Sprintf("encoding event %T: %v", ev, err))
	}
	head, _ := json.Marshal(struct {
		Index    int    `json:"receiver_index"`
		Receiver string `json:"receiver"`
	}{i + 1, value})
	if len(b) <= 2 {
		return head
	}
	return append(append(head[:len(head)-1:len(head)-1], ','), b[1:]...)
}

// manyRows shows each receiver's state: one row each, redrawn, on a
// terminal; a plain line per receiver every plainEvery elsewhere.
//
// On a terminal each row is fitted to the terminal's width at every
// redraw and never reaches its last column (a row that wraps would leave
// a line behind at each redraw). A receiver that is moving bytes gets its
// own progressbar bar (barline.go), the single-receiver progress line
// labelled with its name: the rate and ETA over the same window,
// "stalled" when it stopped. Each bar renders into its own buffer and
// the rows are composed here, the cursor moved up over them at each
// redraw. The rows are rewritten when one of them changed (each bar
// renders at most once per its throttle) or a receiver's state did; a
// ticker redraws every tickEvery so that a stall shows even when no
// receiver reports anything.
type manyRows struct {
	p         *printer
	mode      progressMode
	now       func() time.Time
	cols      func() int // the terminal's width, asked at every redraw
	tickEvery time.Duration
	throttle  time.Duration // each bar's least time between renders
	dests     []manyDest
	live      []int // session index -> dests index

	mu        sync.Mutex
	state     []string            // per dest: what a row shows when not moving bytes
	moving    []bool              // per dest: the row is a progress line
	ev        []transfer.Progress // per dest: the last progress
	win       []rateWindow
	bars      []*barLine // per dest: its bar, from its first progress
	labels    []string
	lastPrint []time.Time
	// For the history, per dest: who answered, and the offer once accepted.
	connected []*transfer.Connected
	offers    []*transfer.Offer
	drawn     int    // rows on screen
	shown     string // what they show
	stopTick  chan struct{}
	tickDone  chan struct{}
}

func newManyRows(p *printer, mode progressMode, now func() time.Time, dests []manyDest) *manyRows {
	n := len(dests)
	r := &manyRows{p: p, mode: mode, now: now, cols: terminalCols(p.stderr), tickEvery: tickEvery, throttle: barThrottle, dests: dests,
		state: make([]string, n), moving: make([]bool, n), ev: make([]transfer.Progress, n), win: make([]rateWindow, n),
		bars:   make([]*barLine, n),
		labels: make([]string, n), lastPrint: make([]time.Time, n),
		connected: make([]*transfer.Connected, n), offers: make([]*transfer.Offer, n)}
	for i, d := range dests {
		r.labels[i] = safe(d.dest.label)
		r.state[i] = "connecting"
		if d.err != nil {
			r.state[i] = "not found"
		}
	}
	return r
}

func (r *manyRows) label(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.labels[i]
}

// onEvent is SendMany's handler: never called concurrently.
func (r *manyRows) onEvent(k int, ev transfer.Event) {
	i := r.live[k]
	if j := event.FromTransfer(ev, "sender"); j != nil {
		r.p.event(tag(j, i, r.dests[i].t.value))
	}
	r.mu.Lock()
	var line string
	r.moving[i] = false
	switch e := ev.(type) {
	case transfer.Connected:
		r.connected[i] = &e
		if r.dests[i].pin == nil {
			r.labels[i] = peerLabel(e.PeerName, e.PeerFingerprint)
		}
		r.state[i] = "waiting for it to accept"
		line = fmt.Sprintf("[%d] connected to %s, waiting for it to accept", i+1, r.labels[i])
	case transfer.Accepted:
		r.offers[i] = &e.Offer
		r.state[i] = "accepted: " + describeOffer(e.Offer)
		line = fmt.Sprintf("[%d] %s accepted: sending %s", i+1, r.labels[i], humanBytes(e.Total))
	case transfer.Progress:
		r.moving[i] = e.Total > 0
		r.ev[i] = e
		if e.Total > 0 && (r.bars[i] == nil || r.bars[i].total != e.Total) {
			r.bars[i] = newBarLine(e.Total, r.throttle)
		}
		r.win[i].add(r.now(), e.Done)
		if r.mode == progressPlain {
			if t := r.now(); r.lastPrint[i].IsZero() || t.Sub(r.lastPrint[i]) >= plainEvery {
				r.lastPrint[i] = t
				line = fmt.Sprintf("[%d] %s: %s", i+1, r.labels[i], plainProgress(e))
			}
		}
	case transfer.Finished:
		r.state[i] = "done: " + describeSummary(e.Summary)
	case transfer.Failed:
		_, kind, _ := classify(e.Err)
		r.state[i] = "failed: " + kindWords(kind)
	}
	r.mu.Unlock()
	if r.mode == progressBar {
		_, progress := ev.(transfer.Progress)
		r.draw(!progress)
		return
	}
	if line != "" && !(r.mode == progressOff) {
		if _, progress := ev.(transfer.Progress); progress {
			r.p.progressLine(line)
		} else {
			r.p.infof("%s", line)
		}
	}
}

// row renders receiver i's row in at most cols-1 cells; r.mu is held.
func (r *manyRows) row(i, cols int, t time.Time) string {
	head := fmt.Sprintf("[%d] ", i+1)
	if !r.moving[i] {
		row := prefix + head + r.labels[i] + ": " + r.state[i]
		if cellWidth(row) > cols-1 {
			row = cutCells(row, max(cols-2, 0)) + "…"
		}
		return cutCells(row, max(cols-1, 0))
	}
	e := r.ev[i]
	st := barState{label: r.labels[i], done: e.Done, total: e.Total, stalled: r.win[i].stalled(t)}
	rate, known := r.win[i].rate()
	switch {
	case e.Done >= e.Total:
	case st.stalled:
		st.eta = "stalled"
	case known && rate > 0:
		st.rate = rate
		st.eta = etaText(float64(e.Total-e.Done)/rate, true)
	default:
		st.eta = etaText(0, false)
	}
	// The bar's line with the row's number after the prefix.
	return r.bars[i].render(prefix+head, st, cols)
}

// draw redraws the rows when one of them changed, or always when forced
// (a change of state, not of bytes).
func (r *manyRows) draw(force bool) {
	r.p.locked(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		t := r.now()
		if r.stopTick == nil && r.tickEvery > 0 {
			r.startTicker()
		}
		cols := r.cols()
		var b strings.Builder
		for i := range r.dests {
			b.WriteString(r.row(i, cols, t) + "\n")
		}
		if !force && r.drawn > 0 && b.String() == r.shown {
			return
		}
		r.p.clearLine()
		r.p.stderr.Write([]byte(b.String()))
		r.drawn, r.shown = len(r.dests), b.String()
		r.p.line = r
	})
}

// tick redraws with the time as it is now, so that a stall shows. A
// moving row's window gets a sample of its unchanged count.
func (r *manyRows) tick() {
	r.mu.Lock()
	t := r.now()
	for i := range r.dests {
		if r.moving[i] {
			r.win[i].add(t, r.ev[i].Done)
		}
	}
	r.mu.Unlock()
	r.draw(true)
}

// startTicker starts the redraw ticker; r.mu is held. finish stops it.
func (r *manyRows) startTicker() {
	stop, done := make(chan struct{}), make(chan struct{})
	r.stopTick, r.tickDone = stop, done
	go func() {
		defer close(done)
		tk := time.NewTicker(r.tickEvery)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				r.tick()
			}
		}
	}()
}

// Clear removes the rows, for the printer before it writes a message;
// the next draw puts them back under it. Called with the printer locked.
func (r *manyRows) Clear() error {
	if r.drawn > 0 {
		fmt.Fprintf(r.p.stderr, "\x1b[%dA\r\x1b[J", r.drawn)
		r.drawn = 0
	}
	return nil
}

// finish stops the ticker, draws the rows a last time and leaves them on
// screen.
func (r *manyRows) finish() {
	r.mu.Lock()
	stop, done := r.stopTick, r.tickDone
	r.tickEvery = 0 // no ticker after this
	r.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	if r.mode != progressBar {
		return
	}
	r.draw(true)
	r.p.setLine(nil)
}
