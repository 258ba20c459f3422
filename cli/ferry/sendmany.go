package main

// Sending to several receivers: "ferry send --to A --to B --peer C PATH".
//
// Each --to and --peer is a receiver, in the order given. Each gets its
// own session (core/app's SendMany): its own code or trust, its own accept,
// its own progress row, its own result; one that declines, fails or is
// slow never stops the others, and the files are read once for all.
//
// Codes go, in order, to the receivers that need one: every --to, and
// every --peer that is not a trusted device. On a terminal, a receiver
// left without one is asked for its code when it is found. --paired and
// --trust are for one receiver and are refused here.
//
// It runs on core/app's Node (SendMany): each receiver gets its own
// transfer and history record, with its own peer and outcome, as a send
// to it alone would; one that could not be found is recorded as a failed
// send to the name or address given.
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

	"github.com/ferry-project/ferry/core/app"
	"github.com/ferry-project/ferry/core/app/event"
	"github.com/ferry-project/ferry/core/app/stores"
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
	pin  *stores.Device
	err  error // not found, or no way to authenticate: its result
}

// manySend shows a send to several receivers (sendView): a row each.
type manySend struct {
	p     *printer
	dests []manyDest
	rows  *manyRows
}

func (m *manySend) connecting(i int, d manyDest) {
	if d.err == nil {
		m.p.infof("[%d] connecting to %s", i+1, d.dest.label)
	}
}

func (m *manySend) onEvent(t *app.Transfer, ev event.Event) { m.rows.onEvent(t.Index(), ev) }

func (m *manySend) ended(t *app.Transfer, sum event.Summary, err error) {
	m.rows.ended(t.Index(), sum, err)
}

func (m *manySend) report(ctx context.Context, results []app.Result) error {
	m.rows.finish()
	return reportMany(ctx, m.p, m.dests, results, m.rows)
}

// assignCodes gives --code values, in order, to the receivers that need
// one, and fails before any network use when a receiver is left without
// one and nobody can be asked.
func assignCodes(o sendOpts, store *stores.Trust, interactive bool) ([]manyDest, error) {
	dests := make([]manyDest, len(o.targets))
	codes := o.codes
	for i, t := range o.targets {
		dests[i].t = t
		if t.peer && store != nil {
			if _, err := store.Find(t.value); err == nil {
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
func resolveDest(ctx context.Context, p *printer, q *prompter, o sendOpts, store *stores.Trust, d *manyDest, interactive bool) error {
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
		case st == stores.TrustTrusted:
			p.infof("%s is a trusted device: sending without a code", dest.label)
			d.pin = &dev
			d.dest.label = peerLabel(dev.Name, dev.Fingerprint())
			return nil
		case st == stores.TrustKeyChanged:
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
func reportMany(ctx context.Context, p *printer, dests []manyDest, results []app.Result, rows *manyRows) error {
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
