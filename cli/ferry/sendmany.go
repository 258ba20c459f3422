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
	stdin, err := takeStdin(&o, e.stdinTerminal)
	if err != nil {
		return err
	}
	if err := checkPaths(o.paths); err != nil {
		return err
	}
	items := make([]transfer.Item, 0, len(o.paths)+2)
	for _, path := range o.paths {
		items = append(items, transfer.Item{Path: path})
	}
	if o.text != "" && !stdin.text {
		items = append(items, transfer.Item{Text: o.text})
	}
	if o.clipboard {
		it, done, err := clipboardItem(ctx)
		if err != nil {
			return err
		}
		defer done()
		items = append(items, it)
	}
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
	if len(cfg.To) > 0 {
		got, _ := transfer.SendMany(ctx, cfg)
		for k, r := range got {
			results[live[k]] = r
		}
	}
	rows.finish()
	return reportMany(ctx, p, dests, results, rows)
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
			p.event(tag(manyDoneEvent{newDoneEvent(r.Summary, "sender", false), r.ReadAgain}, i, dests[i].t.value))
			again := ""
			if r.ReadAgain > 0 {
				again = fmt.Sprintf(" (%s read from disk again for it: it fell behind the others)", humanBytes(r.ReadAgain))
			}
			p.infof("[%d] sent %s to %s%s, every file confirmed%s", i+1, describeSummary(r.Summary), label, rateSuffix(r.Summary), again)
			continue
		}
		err := interrupted(ctx, r.Err)
		code, kind, hint := classify(err)
		p.event(tag(errorEvent{Event: "error", Kind: kind, ExitCode: code, Message: err.Error(), Hint: hint}, i, dests[i].t.value))
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
	doneEvent
	ReadAgain int64 `json:"read_again_bytes"`
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
	b, err := json.Marshal(ev)
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
type manyRows struct {
	p     *printer
	mode  progressMode
	now   func() time.Time
	dests []manyDest
	live  []int // session index -> dests index

	mu        sync.Mutex
	state     []string // per dest: what a row shows
	labels    []string
	lastPrint []time.Time
	drawn     int // rows on screen
	lastDraw  time.Time
}

func newManyRows(p *printer, mode progressMode, now func() time.Time, dests []manyDest) *manyRows {
	r := &manyRows{p: p, mode: mode, now: now, dests: dests,
		state: make([]string, len(dests)), labels: make([]string, len(dests)), lastPrint: make([]time.Time, len(dests))}
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
	if j := jsonEvent(ev, "sender"); j != nil {
		r.p.event(tag(j, i, r.dests[i].t.value))
	}
	r.mu.Lock()
	var line string
	switch e := ev.(type) {
	case transfer.Connected:
		if r.dests[i].pin == nil {
			r.labels[i] = peerLabel(e.PeerName, e.PeerFingerprint)
		}
		r.state[i] = "waiting for it to accept"
		line = fmt.Sprintf("[%d] connected to %s, waiting for it to accept", i+1, r.labels[i])
	case transfer.Accepted:
		r.state[i] = "accepted: " + describeOffer(e.Offer)
		line = fmt.Sprintf("[%d] %s accepted: sending %s", i+1, r.labels[i], humanBytes(e.Total))
	case transfer.Progress:
		r.state[i] = rowProgress(e)
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

// rowProgress is one row's progress: "40% 412 MiB / 1.0 GiB 110 MiB/s".
func rowProgress(e transfer.Progress) string {
	pct := 0
	if e.Total > 0 {
		pct = int(100 * e.Done / e.Total)
	}
	s := fmt.Sprintf("%3d%% %s / %s", pct, humanBytes(e.Done), humanBytes(e.Total))
	if e.Rate > 0 {
		s += " " + humanRate(e.Rate)
	}
	return s
}

// rowWidth keeps a row on one line of an 80-column terminal.
const rowWidth = 79

// draw redraws the rows, at most every 100 ms unless forced (a change of
// state, not of bytes).
func (r *manyRows) draw(force bool) {
	r.p.locked(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		t := r.now()
		if !force && t.Sub(r.lastDraw) < 100*time.Millisecond {
			return
		}
		r.lastDraw = t
		r.p.clearLine()
		var b strings.Builder
		for i := range r.dests {
			row := fmt.Sprintf("%s[%d] %s: %s", prefix, i+1, r.labels[i], r.state[i])
			if rs := []rune(row); len(rs) > rowWidth {
				row = string(rs[:rowWidth-1]) + "…"
			}
			b.WriteString(escape(row, 0, false) + "\n")
		}
		r.p.stderr.Write([]byte(b.String()))
		r.drawn = len(r.dests)
		r.p.line = r
	})
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

// finish draws the rows a last time and leaves them on screen.
func (r *manyRows) finish() {
	if r.mode != progressBar {
		return
	}
	r.draw(true)
	r.p.setLine(nil)
}
